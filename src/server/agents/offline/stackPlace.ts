import { backupPaths, DEFAULT_BACKUP_PATHS, type StackPlace } from './backupScripts';

/**
 * Where a project's stack lives on its server: its directory, its compose project name and where its
 * backup is installed. Two projects deployed to one server must never share any of them: a shared folder
 * has the second deploy overwrite the first's files, a shared compose project name has `up
 * --remove-orphans` and `down` act on the other's containers, a shared cron file or state folder mixes
 * their backups. A new project's place is derived from its id (unique) and its name at the time, then
 * fixed: it is stored with the project the first time a plan or a step uses it (projectPlace.ts), so a
 * rename never moves the stack, and every document, step, release, drift check and backup read renders
 * from the same value; a project deployed before places existed keeps the folder its releases or its
 * executed steps used (`placeOfDirectory`).
 */

/** A compose project name: docker's own rule (lowercase letters, digits, `_`, `-`), so it is safe in a shell word. */
export const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** A stack directory: an absolute path of plain segments (no quoting needed, no `..`). */
export const STACK_DIRECTORY = /^\/(?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** The planning prompt's block that carries the project's stack directory to the planner. */
export const STACK_DIRECTORY_TAG = 'stack_directory';

/** The folder every project's stack folder sits in. */
export const STACKS_ROOT = '/opt/stacks';
/** Where every stack lived before stacks had places of their own: still the place of a project whose releases say so. */
export const LEGACY_STACK_DIR = '/opt/stack';

/** Whether `directory` is a stack directory the shell may be given unquoted. */
export const isStackDirectory = (directory: string): boolean => STACK_DIRECTORY.test(directory) && !directory.split('/').some((s) => s === '..' || s === '.');

/** The name of a project's stack: a slug of its name (ASCII letters and digits, at most 30) and its id, a valid compose project name. */
export function stackName(project: { id: number; name: string }): string {
  if (!Number.isSafeInteger(project.id) || project.id < 0) throw new Error(`not a project id: ${project.id}`);
  const slug = project.name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 30).replace(/-+$/, '');
  return `${slug || 'stack'}-${project.id}`;
}

/**
 * The place of a stack directory: its compose project name is the folder's name (what `docker compose`
 * itself takes in that folder, so a person running it by hand there acts on the same containers), its
 * backup installed under paths named after it. `/opt/stack` keeps the paths its backup was installed
 * under. Throws on a directory the shell could misread.
 */
export function placeOfDirectory(directory: string): StackPlace {
  if (!isStackDirectory(directory)) throw new Error(`not a stack directory: ${directory}`);
  const project = directory.split('/').pop()!;
  if (!PROJECT_NAME.test(project)) throw new Error(`not a compose project name: ${project}`);
  return { dir: directory, project, backup: directory === LEGACY_STACK_DIR ? DEFAULT_BACKUP_PATHS : backupPaths(project) };
}

/** The place of `directory`, or nothing when it is not one (a folder the shell could misread, a name docker refuses). */
export function placeIfValid(directory: string): StackPlace | undefined {
  try {
    return placeOfDirectory(directory);
  } catch {
    return undefined;
  }
}

/** A new project's place: `/opt/stacks/<slug>-<id>`. */
export const placeOfProject = (project: { id: number; name: string }): StackPlace => placeOfDirectory(`${STACKS_ROOT}/${stackName(project)}`);

/**
 * The project's place: the directory its last release recorded when it has one (a project deployed to
 * `/opt/stack` keeps working there), else the one derived from the project.
 */
export function stackPlaceOf(project: { id: number; name: string }, recordedDirectory?: string | null): StackPlace {
  return recordedDirectory ? placeOfDirectory(recordedDirectory) : placeOfProject(project);
}

/**
 * A file of the stack's own among the server's shared ones (`/etc/cron.d/stack-maintenance`,
 * `/etc/sysctl.d/99-stack.conf`): the stack's name appended, so another project's deploy neither
 * overwrites nor removes it; the legacy place keeps the name it was installed under.
 */
export const ownFile = (place: StackPlace, path: string): string => (place.dir === LEGACY_STACK_DIR ? path : path.replace(/(\.conf)?$/, `-${place.project}$1`));

/**
 * A stack folder path standing alone: at the start of a word (after a blank, a quote, `host:`, `VAR=`, a
 * shell operator), so `~/opt/stack` or `$HOME/opt/stack` are not it; none of its name's characters after it.
 */
const STACK_FOLDER_NAMED = /(?<=^|[\s'"`:=;|&(<>])\/opt\/stack(?:s\/[A-Za-z0-9_.-]*[A-Za-z0-9_-])?(?![A-Za-z0-9_.-]*[A-Za-z0-9_-])/g;

/**
 * The stack folders a shell text names: `/opt/stack` and `/opt/stacks/<name>` wherever they stand — a
 * `cd`, an rsync target (`host:/opt/stack/`), a quoted word, a remote script inside a heredoc or an
 * `ssh … '…'` string — with what follows inside the folder cut off (`/opt/stack/.env` names `/opt/stack`).
 * A lexical scan, not a shell parse, on purpose: a folder reached through any nesting of quotes, here-docs
 * and remote shells is the same characters, and a parse would have to follow every such nesting to see it.
 * `/opt/stacks` itself (every project's parent) is no stack folder; a name built at run time
 * (`/opt/stacks/$NAME`) cannot be read and is not returned.
 */
export function stackDirectoriesIn(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(STACK_FOLDER_NAMED)) found.add(m[0]);
  return [...found];
}

/**
 * Whether `directory` can be the project's own stack folder: the legacy shared one, or a folder under
 * `/opt/stacks` whose name ends in the project's id (its name part may be one the project had before).
 */
export function isOwnStackDirectory(projectId: number, directory: string): boolean {
  if (directory === LEGACY_STACK_DIR) return true;
  const name = directory.startsWith(`${STACKS_ROOT}/`) ? directory.slice(STACKS_ROOT.length + 1) : '';
  return PROJECT_NAME.test(name) && name.endsWith(`-${projectId}`) && placeIfValid(directory) !== undefined;
}

/** The place of the legacy shared folder: what a plan made without a project (a test's, a bench's) renders. */
export const LEGACY_PLACE: StackPlace = placeOfDirectory(LEGACY_STACK_DIR);
