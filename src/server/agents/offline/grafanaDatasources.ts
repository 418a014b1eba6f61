import YAML from 'yaml';
import { PRODUCTS, type Product, type ServiceSpec } from './knowledge';
import { renderTemplate } from '../catalogue/template';

/**
 * Grafana's data sources, provisioned from what the stack holds: every service whose catalogue entry says
 * Grafana reads it (its `datasource`: plugin type, address, user, settings, credentials) becomes one entry
 * of the provisioning file the plan writes. Credentials are never written into the file: each `${SECRET}`
 * of a data source is handed to Grafana's environment from the stack's `.env`, and Grafana's provisioning
 * reads it from there (Grafana expands `${VAR}` in provisioning values).
 */

const SECRET_REF = /^\$\{([A-Z][A-Z0-9_]*)\}$/;

/** The product a service belongs to, by the catalogue. */
const productOf = (service: string): string | undefined => Object.values(PRODUCTS).find((c) => c.services.some((s) => s.name === service))?.id;

/** The services of a stack Grafana reads as data sources, in the order of Grafana's own needs (its default first). */
export function datasourceServices(services: ServiceSpec[], grafana: Product): ServiceSpec[] {
  const order = grafana.needs.flat();
  const rank = (s: ServiceSpec): number => {
    const i = order.indexOf(productOf(s.name) ?? '');
    return i < 0 ? order.length : i;
  };
  return services.filter((s) => s.datasource && s.internalPort).sort((a, b) => rank(a) - rank(b));
}

/** Where Grafana connects to a data source service: its catalogue `url` filled in, else its HTTP address. */
export function datasourceUrl(s: ServiceSpec): string {
  const url = s.datasource!.url;
  return url ? renderTemplate(url, { service: s.name, port: s.internalPort! }) : `http://${s.name}:${s.internalPort}`;
}

/** The secrets a data source's credentials read (`POSTGRES_PASSWORD` of `${POSTGRES_PASSWORD}`). */
export function datasourceSecrets(s: ServiceSpec): string[] {
  return Object.values(s.datasource?.secureJsonData ?? {}).map((v) => SECRET_REF.exec(v)?.[1]).filter((x): x is string => Boolean(x));
}

/** The provisioning file (Grafana's `apiVersion: 1` datasources list). */
export function grafanaDatasourcesYaml(services: ServiceSpec[], grafana: Product): string {
  const datasources = datasourceServices(services, grafana).map((s, i) => {
    const d = s.datasource!;
    return {
      name: d.name,
      type: d.type,
      // A stable uid: dashboards refer to their data source by it, and a re-provisioning keeps them working.
      uid: `${s.name}-${d.type}`.slice(0, 40),
      access: 'proxy',
      url: datasourceUrl(s),
      ...(d.user ? { user: d.user } : {}),
      ...(d.basicAuthUser ? { basicAuth: true, basicAuthUser: d.basicAuthUser } : {}),
      isDefault: i === 0,
      editable: false,
      ...(d.jsonData ? { jsonData: { ...d.jsonData } } : {}),
      ...(d.secureJsonData ? { secureJsonData: { ...d.secureJsonData } } : {}),
    };
  });
  return YAML.stringify({ apiVersion: 1, datasources });
}

/**
 * Wires each Grafana of the stack to its data sources: it waits for them (healthy first, so the first
 * dashboard query answers) and gets the secrets their credentials read in its environment.
 */
export function wireDatasources(services: ServiceSpec[], components: Product[]): void {
  for (const reader of services.filter((s) => s.generates?.kind === 'grafana-datasources')) {
    const grafana = components.find((c) => c.services.some((y) => y.name === reader.name));
    if (!grafana) continue;
    const sources = datasourceServices(services, grafana);
    reader.dependsOn = [...new Set([...(reader.dependsOn ?? []), ...sources.map((s) => s.name)])];
    const secrets = sources.flatMap(datasourceSecrets);
    if (secrets.length) reader.environment = { ...reader.environment, ...Object.fromEntries(secrets.map((n) => [n, `\${${n}}`])) };
  }
}
