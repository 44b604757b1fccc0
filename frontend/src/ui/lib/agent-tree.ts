// A run's workspace files (listWorkspaceFiles gives flat paths) as the
// rows of a tree: folders first, then files, each with its depth.
import type { AgentWorkspaceFileInfo } from '../../abi/types';

/** TreeRow is one row of the tree: a folder (with how many files it holds) or a file. */
export type TreeRow =
  | { kind: 'dir'; path: string; name: string; depth: number; count: number }
  | { kind: 'file'; path: string; name: string; depth: number; file: AgentWorkspaceFileInfo };

/** ROOT_ORDER is the order of the workspace's top folders (AGENT.md §6); others follow by name. */
const ROOT_ORDER = ['output', 'scratch', 'plan', 'summaries', 'persist'];

interface Dir {
  dirs: Map<string, Dir>;
  files: AgentWorkspaceFileInfo[];
  count: number;
}

function rank(name: string, depth: number): number {
  const i = depth === 0 ? ROOT_ORDER.indexOf(name) : -1;
  return i < 0 ? ROOT_ORDER.length : i;
}

/**
 * treeRows lays files out as a tree; a folder in collapsed shows its row
 * but not what is inside it.
 */
export function treeRows(files: readonly AgentWorkspaceFileInfo[], collapsed: ReadonlySet<string> = new Set()): TreeRow[] {
  const root: Dir = { dirs: new Map(), files: [], count: 0 };
  for (const f of files) {
    const parts = f.path.split('/');
    let d = root;
    d.count++;
    for (const part of parts.slice(0, -1)) {
      let next = d.dirs.get(part);
      if (!next) d.dirs.set(part, (next = { dirs: new Map(), files: [], count: 0 }));
      next.count++;
      d = next;
    }
    d.files.push(f);
  }
  const rows: TreeRow[] = [];
  const walk = (d: Dir, prefix: string, depth: number) => {
    const names = [...d.dirs.keys()].sort((a, b) => rank(a, depth) - rank(b, depth) || a.localeCompare(b));
    for (const name of names) {
      const path = prefix + name;
      const sub = d.dirs.get(name) as Dir;
      rows.push({ kind: 'dir', path, name, depth, count: sub.count });
      if (!collapsed.has(path)) walk(sub, `${path}/`, depth + 1);
    }
    for (const f of [...d.files].sort((a, b) => a.path.localeCompare(b.path))) {
      rows.push({ kind: 'file', path: f.path, name: f.path.slice(prefix.length), depth, file: f });
    }
  };
  walk(root, '', 0);
  return rows;
}
