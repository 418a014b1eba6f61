import Fastify from 'fastify';

/**
 * The reference of the browser-like section, run in its own process: bare Fastify routes at the paths
 * the app's hot polls use, answering each with a constant JSON body, a weak ETag and 304 when
 * If-None-Match names it. No plugins, no session, no logger. Prints its URL on stdout.
 */
const app = Fastify({ logger: false });
const bodies: Record<string, unknown> = {
  progress: { steps: [], current_step_index: 0, status: 'idle' },
  credits: { credits_balance: 5 },
  costs: { total_cost_usd: 0, by_agent: [] },
  status: { container_status: 'NotRunning', username: 'user_1_1', last_sync_time: null },
};
for (const [name, body] of Object.entries(bodies)) {
  const etag = `W/"bare.${name}.1"`;
  const json = JSON.stringify(body);
  app.get(`/bare/${name}/*`, async (request, reply) => {
    reply.header('etag', etag).header('cache-control', 'private, no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(json);
  });
}
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${address}\n`);
// Exits (rather than dying of the signal) so that a --cpu-prof profile is written (BENCH_CPU_PROF_DIR).
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
