/**
 * A backup destination as the person gives it (an SSH host, or a bucket of an S3-compatible store) and
 * as the stack model keeps it: a restic repository URL (`sftp://user@host:port//path`,
 * `s3:https://endpoint/bucket/prefix`). Both ways go through here, so the conversation, the Collected
 * Requirements panel and the plan agree on one spelling. Credentials are never part of it: they are
 * User Secrets (BACKUP_PASSWORD, BACKUP_SSH_KEY, BACKUP_S3_ACCESS_KEY_ID, BACKUP_S3_SECRET_ACCESS_KEY).
 */

export interface SftpPlace {
  kind: 'sftp';
  user?: string | undefined;
  host: string;
  port: number;
  /** Absolute (`/srv/restic`) or relative to the login's home (`backups/app`). */
  path: string;
}

export interface S3Place {
  kind: 's3';
  /** `https://host[:port]`, no path. */
  endpoint: string;
  bucket: string;
  prefix?: string | undefined;
}

export type BackupPlace = SftpPlace | S3Place;

/** Amazon's own S3 endpoint, when the person names a bucket and no other store. */
export const AWS_S3_ENDPOINT = 'https://s3.amazonaws.com';
/** The folder in the login's home an SSH destination gets when the person names none. */
export const DEFAULT_SFTP_PATH = 'stack-backups';

const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const HOST = /^(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}|(?:\d{1,3}\.){3}\d{1,3}|[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)$/;
const PATH = /^[A-Za-z0-9_.~+/-]{1,300}$/;
/** S3's bucket naming rules (lowercase, digits, dots and hyphens, 3–63). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const ENDPOINT = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

const validIp = (host: string): boolean => !/^[\d.]+$/.test(host) || host.split('.').every((o) => Number(o) <= 255);
const cleanPath = (p: string): string => p.replace(/\/{2,}/g, '/').replace(/\/$/, '');

/** What is wrong with a place, in words; undefined when it makes a destination. */
export function placeProblem(p: BackupPlace): string | undefined {
  if (p.kind === 'sftp') {
    if (!HOST.test(p.host) || !validIp(p.host)) return `"${p.host}" is not a host name or IPv4 address`;
    if (p.user !== undefined && !USER.test(p.user)) return `"${p.user}" is not a user name (letters, digits, . _ -)`;
    if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) return `port ${p.port} is not between 1 and 65535`;
    if (!PATH.test(p.path) || p.path.split('/').includes('..')) return `"${p.path}" is not a folder path (letters, digits, . _ ~ + - /, no "..")`;
    return undefined;
  }
  if (!ENDPOINT.test(p.endpoint)) return `"${p.endpoint}" is not an endpoint address (https://host, without a path or credentials)`;
  if (!BUCKET.test(p.bucket)) return `"${p.bucket}" is not a bucket name (3–63 lowercase letters, digits, dots and hyphens)`;
  if (p.prefix !== undefined && (!PATH.test(p.prefix) || p.prefix.split('/').includes('..'))) return `"${p.prefix}" is not a folder path inside the bucket`;
  return undefined;
}

/**
 * The restic repository URL of a place.
 *
 * @throws Error saying what is wrong (placeProblem) when it is not one.
 */
export function destinationOf(p: BackupPlace): string {
  const problem = placeProblem(p);
  if (problem) throw new Error(problem);
  if (p.kind === 's3') {
    const prefix = p.prefix ? cleanPath(p.prefix).replace(/^\//, '') : '';
    return `s3:${p.endpoint}/${p.bucket}${prefix ? `/${prefix}` : ''}`;
  }
  // restic's sftp:// form: after the host's slash, an absolute path starts with a second one.
  return `sftp://${p.user ? `${p.user}@` : ''}${p.host}:${p.port}/${cleanPath(p.path)}`;
}

/** The place a destination names (the model's, or one written by hand in restic's spelling); undefined when it is not one. */
export function placeOf(destination: string): BackupPlace | undefined {
  let place: BackupPlace | undefined;
  const s3 = /^s3:(https?:\/\/[^/]+)\/([^/]+)(?:\/(.+))?$/.exec(destination);
  const url = /^sftp:\/\/(?:([^@/:]+)@)?([^@/:]+)(?::(\d{1,5}))?\/(.+)$/.exec(destination);
  const short = /^sftp:(?:([^@/:]+)@)?([^@/:]+):(.+)$/.exec(destination);
  if (s3) place = { kind: 's3', endpoint: s3[1]!, bucket: s3[2]!, ...(s3[3] ? { prefix: s3[3] } : {}) };
  else if (url) place = { kind: 'sftp', user: url[1], host: url[2]!, port: Number(url[3] ?? 22), path: url[4]! };
  else if (short) place = { kind: 'sftp', user: short[1], host: short[2]!, port: 22, path: short[3]! };
  if (place?.kind === 'sftp' && place.user === undefined) delete place.user;
  return place && !placeProblem(place) ? place : undefined;
}

/** The User Secrets a destination needs to be opened (besides BACKUP_PASSWORD, which every off-server one needs). */
export const secretsOfPlace = (p: BackupPlace): string[] => (p.kind === 'sftp' ? ['BACKUP_SSH_KEY'] : ['BACKUP_S3_ACCESS_KEY_ID', 'BACKUP_S3_SECRET_ACCESS_KEY']);

/** Where a destination is, in words a person reads, without credentials (none is ever part of it). */
export function destinationText(destination: string): string {
  const place = placeOf(destination);
  if (!place) return destination.startsWith('s3:') ? `the S3-compatible store ${destination.slice(3)}` : `the SSH host ${destination.replace(/^sftp:(\/\/)?/, '')} (over SFTP)`;
  if (place.kind === 's3') return `bucket ${place.bucket}${place.prefix ? `, folder ${place.prefix},` : ''} of the S3-compatible store at ${place.endpoint}`;
  return `the SSH host ${place.host} port ${place.port}${place.user ? ` as user ${place.user}` : ''}, folder ${place.path} (over SFTP)`;
}
