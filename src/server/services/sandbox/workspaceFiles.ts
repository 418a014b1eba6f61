import type { SandboxDriver, SandboxRef } from '../../sandbox/driver';

/** Base64 characters per command (one command argument stays below Linux's 128 KiB limit). */
const WRITE_CHUNK = 96 * 1024;

/**
 * Writes a file into a sandbox's workspace through the driver's exec, whatever the driver: base64 in
 * pieces small enough for one command, into a `.part` file that is moved into place once whole, so a
 * step never sees half a file.
 */
export async function writeWorkspaceFile(driver: Pick<SandboxDriver, 'exec'>, sandbox: SandboxRef, file: string, data: Buffer): Promise<void> {
  if (!/^[\w][\w.-]*$/.test(file)) throw new Error(`not a workspace file name: ${file}`);
  const part = `.${file}.part`;
  const text = data.toString('base64');
  const run = async (command: string): Promise<void> => {
    const result = await driver.exec(sandbox, command, { timeoutMs: 60_000 });
    if (result.exitCode !== 0) throw new Error(`could not write ${file} into the workspace: ${result.output.trim().slice(-300)}`);
  };
  await run(`: > ${part}`);
  for (let at = 0; at < text.length; at += WRITE_CHUNK) await run(`printf '%s' '${text.slice(at, at + WRITE_CHUNK)}' | base64 -d >> ${part}`);
  await run(`mv -f ${part} ${file}`);
}
