/**
 * How a step's command reaches the bash that runs it: as bytes on that bash's stdin, never as an argument.
 * A process's argv is world-readable on the host (`ps`, /proc/<pid>/cmdline) for as long as it runs, and a
 * command typed by a person or written into a plan may hold a secret value (`mysql -p'…'`); the sandbox's
 * processes are the host's processes for every driver (bubblewrap, a container, a pod on this node).
 *
 * `COMMAND_LOADER` reads exactly `$1` bytes from stdin with bash's builtin `read` (which reads a pipe one
 * byte at a time, so nothing after the command is taken: the docker driver's kill line, the rest of a
 * Kubernetes exec's stdin that is never closed), in the C locale so that `-N` counts bytes, then runs them
 * as `bash -c` would: no positional parameters, stdin from /dev/null, the exit status of the last command.
 * `c` is unset by the evaluated text itself so that the command sees no variable of the loader's.
 */
export const COMMAND_LOADER = 'IFS= LC_ALL=C read -r -N "$1" c || exit 125; set --; exec </dev/null; eval "unset -v c; $c"';

/** The argv of a bash that runs a command read from its stdin, and the bytes to write there first. */
export interface CommandOnStdin {
  argv: string[];
  stdin: Buffer;
}

/**
 * A command as `bash -c <command>` runs it, with the command on stdin instead of on the command line.
 *
 * @example
 *   commandOnStdin("mysql -p'pa ss'")
 *   // argv:  ['bash', '-c', COMMAND_LOADER, 'bash', '15']
 *   // stdin: "mysql -p'pa ss'"
 */
export function commandOnStdin(command: string): CommandOnStdin {
  const stdin = Buffer.from(command, 'utf8');
  return { argv: ['bash', '-c', COMMAND_LOADER, 'bash', String(stdin.length)], stdin };
}
