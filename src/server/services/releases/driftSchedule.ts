/**
 * Drift checks on a schedule: one timer for the whole server, ticking every `minutes` (at most every five
 * minutes), that checks the projects due (`checkDue` reads each one's last check from the database, so a
 * restart picks the schedule up where it was). Off when `minutes` is 0. `stop` ends the timer and waits
 * for a check under way.
 */
export function scheduleDriftChecks(minutes: number, checkDue: (minutes: number) => Promise<number>, log: { warn(obj: object, msg: string): void }): { stop(): Promise<void> } {
  if (!minutes || minutes <= 0) return { stop: async () => undefined };
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = checkDue(minutes)
      .catch((err: unknown) => log.warn({ err }, 'scheduled drift checks failed'))
      .finally(() => (running = null));
  }, Math.min(minutes, 5) * 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
