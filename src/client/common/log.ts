/** Failures the spec says are "only logged" (profile, credits) go through here. */
export function logError(context: string, error: unknown): void {
  console.error(`[${context}]`, error);
}
