import { dockerComposeAvailable } from '../helpers/composeChecks';
import { REQUESTS, runRequest } from './requestTable';

/**
 * The request table (printRequestTable.ts prints it): every request gets the product it asked for, or
 * hears by name that the planner does not know it; every compose file passes the Compose
 * Specification's schema and Debian's `docker-compose config` (required in CI).
 */
describe('offline planner: requests nobody tuned it for', () => {
  const withDockerCompose = dockerComposeAvailable();

  test.each(REQUESTS.map((r) => [r.text, r] as const))('%s', (_text, request) => {
    const row = runRequest(request, withDockerCompose);
    expect({ services: row.services, gotProduct: row.gotProduct }).toEqual({ services: row.services, gotProduct: true });
    if (request.unknown?.length) {
      // Named back once; the plain answer after it goes on, the plan saying what was left out (gotProduct checks it).
      expect(row.unknownNamed).toBe(true);
      return;
    }
    expect(row.ready).toBe(true);
    expect(row.ownValidator).toEqual([]);
    expect(row.schemaErrors).toEqual([]);
    if (withDockerCompose && row.services.length) expect(row.composeConfig).toBe('');
  });
});
