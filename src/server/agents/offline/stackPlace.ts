import { backupPaths, DEFAULT_BACKUP_PATHS, type StackPlace } from './backupScripts';

/**
 * Where a project's stack lives on its server: its directory, its compose project name and where its
 * backup is installed. Two projects deployed to one server must never share any of them: a shared folder
 * has the second deploy overwrite the first's files, a shared compose project name has `up
 * --remove-orphans` and `down` act on the other's containers, a shared cron file or state folder mixes
 * their backups. The place is a function of the project's id (unique) and name (never renamed), so every
 * document, step, release, drift check and backup read renders from the same value; a project deployed
 * before places existed keeps the one its releases recorded (`placeOfDirectory`).
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

/** The place of the legacy shared folder: what a plan made without a project (a test's, a bench's) renders. */
export const LEGACY_PLACE: StackPlace = placeOfDirectory(LEGACY_STACK_DIR);
