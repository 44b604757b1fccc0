// The skill library for the agent-profiles dialog: the installed skills,
// the folders that do not read as skills, and installing a folder the
// person picked (a skill of the same name is replaced only once they say
// so). Failures are toasts.
import { writable, type Readable } from 'svelte/store';
import type { AgentSkill, AgentSkillProblem, HearthAbi } from '../../abi/types';
import { agentErrorText } from '../lib/agent-text';
import type { ConfirmStore } from './confirm';
import type { ToastStore } from './toasts';

/** PickedFile is a file of a picked folder: its path inside the pick, and the file. */
export interface PickedFile {
  path: string;
  data: Blob | string;
}

export interface SkillStore {
  skills: Readable<AgentSkill[]>;
  problems: Readable<AgentSkillProblem[]>;
  installing: Readable<boolean>;
  load(): Promise<void>;
  /** install installs a picked folder; it resolves the skill, or null when it was refused or cancelled. */
  install(files: PickedFile[]): Promise<AgentSkill | null>;
}

export function createSkillStore(hearth: HearthAbi, toasts: ToastStore, confirm: ConfirmStore): SkillStore {
  const api = hearth.api.agent.skills;
  const skills = writable<AgentSkill[]>([]);
  const problems = writable<AgentSkillProblem[]>([]);
  const installing = writable(false);

  async function load(): Promise<void> {
    try {
      const res = await api.list();
      skills.set(res.skills);
      problems.set(res.problems);
    } catch (err) {
      toasts.error(agentErrorText(err), 'Could not read the skills');
    }
  }

  async function install(files: PickedFile[]): Promise<AgentSkill | null> {
    if (files.length === 0) return null;
    installing.set(true);
    try {
      let replace = false;
      for (;;) {
        try {
          const skill = await api.install({ files, replace });
          toasts.info(`Installed the skill “${skill.name}”`);
          await load();
          return skill;
        } catch (err) {
          const code = (err as { code?: string } | null)?.code;
          if (code === 'skill.exists' && !replace) {
            replace = await confirm.ask({
              title: 'Replace skill',
              message: 'A skill of that name is installed already. Replace it with the folder you picked?',
              confirmLabel: 'Replace',
            });
            if (replace) continue;
            return null;
          }
          toasts.error(agentErrorText(err), 'Could not install the skill');
          return null;
        }
      }
    } finally {
      installing.set(false);
    }
  }

  return { skills, problems, installing, load, install };
}
