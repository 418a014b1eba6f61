import { renderTable, REQUESTS, runRequest } from './requestTable';

/** Prints the request table: `npx tsx test/server/planning/printRequestTable.ts`. */
console.log(renderTable(REQUESTS.map((r) => runRequest(r))));
