// What the extension manager says of a page extension's compatibility
// report (EXTENSIONS.md §5, api.extensions.compatReport): the verdict in
// words, why it will not load, and what it uses that Hearth lacks,
// grouped. Pure, so every wording is tested without a page.
import type { ExtensionCompatReport, ExtensionCompatSummary, ExtensionVerdict } from '../../abi/types-extensions';

/** tone colours a verdict: ok (works), partial, blocked (will not load). */
export type CompatTone = 'ok' | 'partial' | 'blocked';

const TONES: Readonly<Record<ExtensionVerdict, CompatTone>> = { works: 'ok', partial: 'partial', wont_load: 'blocked' };

/** things says "1 thing it uses is" / "3 things it uses are". */
function things(n: number): string {
  return n === 1 ? '1 thing it uses is' : `${n} things it uses are`;
}

/** compatBadge is the verdict in a word or two, for the card's badge. */
export function compatBadge(s: ExtensionCompatSummary): { tone: CompatTone; text: string } {
  switch (s.verdict) {
    case 'works':
      return { tone: 'ok', text: 'Works in Hearth' };
    case 'partial':
      return { tone: 'partial', text: 'Partly works' };
    default:
      return { tone: 'blocked', text: 'Will not load' };
  }
}

/** blockers says, in clauses ("it imports …, which …"), each reason the extension cannot start. */
export function blockers(r: ExtensionCompatReport): string[] {
  const out: string[] = [];
  for (const m of r.modules) {
    if (!m.served && m.linked) {
      out.push(`it imports ${m.path}, which Hearth does not provide`);
      continue;
    }
    for (const n of m.names) {
      if (m.served && n.linked && !n.exported) out.push(`it imports ${n.name} from ${m.path}, which SillyTavern ${r.stVersion} does not have`);
    }
  }
  for (const o of r.others) {
    if (!o.linked) continue;
    if (o.kind === 'url') out.push(`it imports ${o.specifier}, from outside Hearth, which Hearth does not load`);
    if (o.kind === 'bare') out.push(`it imports “${o.specifier}”, a package name a browser cannot find`);
    if (o.kind === 'missing') out.push(`it imports ${o.specifier}, which is not in its package`);
  }
  const v = r.manifest.minimumClientVersion;
  if (v && !v.satisfied) out.push(`it needs SillyTavern ${v.version} or newer, and Hearth follows ${r.stVersion}`);
  for (const d of r.manifest.dependencies) {
    if (!d.installed) out.push(`it needs the extension “${d.id}”, which is not installed`);
  }
  return out;
}

/**
 * verdictSentence is the verdict in words, as the install review and the
 * Details show it: "Works in Hearth", "Partly works: 3 things it uses are
 * not in Hearth", "Will not load: it imports /scripts/openai.js, which
 * Hearth does not provide" (and how many reasons more).
 */
export function verdictSentence(r: ExtensionCompatReport): { tone: CompatTone; text: string } {
  const tone = TONES[r.verdict] ?? 'partial';
  if (r.verdict === 'works') return { tone, text: 'Works in Hearth' };
  if (r.verdict === 'partial') {
    if (r.unsupported === 0) return { tone, text: 'Partly checked: some of its code could not be read' };
    return { tone, text: `Partly works: ${things(r.unsupported)} not in Hearth` };
  }
  const why = blockers(r);
  if (why.length === 0) return { tone, text: 'Will not load' };
  const more = why.length > 1 ? ` (and ${why.length - 1} more reason${why.length > 2 ? 's' : ''})` : '';
  return { tone, text: `Will not load: ${why[0]}${more}` };
}

/** One thing an extension uses that Hearth lacks: what it is (code) and why it matters. */
export interface CompatItem {
  what: string;
  why: string;
}

/** A group of them, titled ("SillyTavern modules", "getContext() members"…). */
export interface CompatGroup {
  key: 'modules' | 'names' | 'context' | 'events' | 'elements' | 'server' | 'manifest';
  title: string;
  items: CompatItem[];
}

const OTHER_WHY: Readonly<Record<ExtensionCompatReport['others'][number]['kind'], string>> = {
  url: 'from outside Hearth: not loaded',
  bare: 'a package name a browser cannot find',
  extension: 'another extension’s file: there only while that one is installed and on',
  missing: 'not in its package',
};

/**
 * unsupportedGroups lists what the extension uses and Hearth lacks, by
 * kind, in the report's order; empty groups are left out.
 */
export function unsupportedGroups(r: ExtensionCompatReport): CompatGroup[] {
  const modules: CompatItem[] = [];
  const names: CompatItem[] = [];
  for (const m of r.modules) {
    if (!m.served) {
      modules.push({ what: m.path, why: m.linked ? 'not provided by Hearth: it cannot load' : 'not provided by Hearth: the part that loads it fails' });
      continue;
    }
    for (const n of m.names) {
      if (!n.exported) names.push({ what: `${n.name} (${m.path})`, why: n.linked ? 'SillyTavern does not have it: it cannot load' : 'SillyTavern does not have it' });
      else if (!n.backed) names.push({ what: `${n.name} (${m.path})`, why: 'not in Hearth: using it shows an error' });
    }
  }
  for (const o of r.others) modules.push({ what: o.specifier, why: OTHER_WHY[o.kind] ?? o.kind });
  const manifest: CompatItem[] = [];
  const v = r.manifest.minimumClientVersion;
  if (v && !v.satisfied) manifest.push({ what: `minimum_client_version ${v.version}`, why: `Hearth follows SillyTavern ${r.stVersion}` });
  for (const d of r.manifest.dependencies) if (!d.installed) manifest.push({ what: d.id, why: 'a needed extension that is not installed' });
  const groups: CompatGroup[] = [
    { key: 'modules', title: 'Modules it imports', items: modules },
    { key: 'names', title: 'Names it imports', items: names },
    { key: 'context', title: 'getContext() members', items: r.context.filter((c) => !c.backed).map((c) => ({ what: c.name, why: 'not in Hearth' })) },
    { key: 'events', title: 'Events', items: r.events.filter((e) => !e.supported).map((e) => ({ what: e.name, why: 'Hearth does not send it' })) },
    { key: 'elements', title: 'Page elements', items: r.domIds.filter((d) => !d.supported).map((d) => ({ what: `#${d.id}`, why: 'not in Hearth’s window' })) },
    { key: 'server', title: 'Server paths', items: r.apiPaths.map((p) => ({ what: p.path, why: 'SillyTavern’s server, which Hearth does not have' })) },
    { key: 'manifest', title: 'Its manifest', items: manifest },
  ];
  return groups.filter((g) => g.items.length > 0);
}

/** usedWords says in a line what the report covers ("Checked 4 files: 2 modules, 6 getContext() members, 3 events"). */
export function usedWords(r: ExtensionCompatReport): string {
  const parts: string[] = [];
  const count = (n: number, one: string, many: string) => n > 0 && parts.push(`${n} ${n === 1 ? one : many}`);
  count(r.modules.length, 'SillyTavern module', 'SillyTavern modules');
  count(r.context.length, 'getContext() member', 'getContext() members');
  count(r.events.length, 'event', 'events');
  count(r.domIds.length, 'page element', 'page elements');
  const files = `${r.scanned.files} file${r.scanned.files === 1 ? '' : 's'}`;
  return parts.length > 0 ? `Read ${files}; it uses ${parts.join(', ')}.` : `Read ${files}; it uses nothing of SillyTavern’s that Hearth checks.`;
}
