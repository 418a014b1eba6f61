import { AWS_S3_ENDPOINT, DEFAULT_SFTP_PATH, destinationOf, placeOf, placeProblem, type BackupPlace } from '../../../shared/backupDestination';
import { PRODUCTS } from './knowledge';

/**
 * Where the person wants the backups, read from their words: "back up to my storage box at
 * u123@u123.your-storagebox.de", "send the backups to S3 bucket app-backups at endpoint
 * https://s3.eu-central-003.backblazeb2.com", "backups over SFTP to backup.example.net port 23 as user
 * restic, folder /srv/restic", "use sftp:restic@nas.lan:/volume1/restic for backups", "keep the backups on
 * the server". Read as a small grammar over the sentence's words: from a backup word, forward (or back)
 * over the words a destination is said with (slot words such as `port`, `bucket`, `user`, `endpoint`,
 * their values, and filler), stopping at the first other word; the values found make the place. The words
 * read are blanked from the text, so what reads the rest (the stack's domain, the deploy server's
 * `user@host`, "my … box" as the person's own server) never takes the backup host for its own.
 */

export interface BackupWords {
  /** A restic repository URL; `null`: the person said to keep the backups on the server; absent: nothing said. */
  destination?: string | null;
  /** What could not be used, in words (a password in a URL, a bucket name S3 refuses). */
  problems: string[];
  /** The text with the words about the destination blanked (same length, so positions hold). */
  rest: string;
}

/** A word that starts what is said about backups. */
const BACKUP_WORD = /^(?:backups?|back-ups?|restic)$/;
/** Words said around a destination that carry nothing: read through, never a reason to stop. */
const FILLER = new Set(
  ('to at on in into onto my our the a an of for from over via using use with go goes should must will be are is get gets sent send ' +
    'stored store kept keep saved save put copied copy written write nightly daily off-site offsite offserver off-server remote another other second ' +
    'separate repository repo restic please it them its there storage box storagebox server host machine nas target destination place ' +
    'ssh sftp named called up').split(' '),
);
/**
 * Words that say the store is S3-compatible (with or without a named endpoint): vendors' names, and the
 * catalogue's own S3-compatible stores (those serving an endpoint labelled `s3`: MinIO).
 */
const S3_WORDS = new Set([
  ...['s3', 's3-compatible', 'compatible', 'object', 'backblaze', 'b2', 'wasabi', 'r2', 'cloudflare', 'garage', 'aws', 'amazon'],
  ...Object.values(PRODUCTS).filter((p) => p.services.some((s) => s.endpoints?.some((e) => e.label === 's3'))).map((p) => p.id),
]);
/** Slot words: the next word is their value. */
const SLOTS: Record<string, Slot> = {
  port: 'port',
  user: 'user',
  username: 'user',
  login: 'user',
  bucket: 'bucket',
  endpoint: 'endpoint',
  url: 'endpoint',
  region: 'region',
  path: 'path',
  folder: 'path',
  directory: 'path',
  dir: 'path',
  prefix: 'path',
};
type Slot = 'port' | 'user' | 'bucket' | 'endpoint' | 'region' | 'path';
/** Words that stay on the server ("keep the backups on this server only"). */
const LOCAL_WORDS = new Set(['only', 'same', 'this', 'local', 'locally', 'that']);
/** Words after `bucket` that are no bucket's name ("the bucket at …"). */
const NOT_A_NAME = new Set(['to', 'at', 'on', 'in', 'the', 'a', 'an', 'for', 'of', 'with', 'and', 'is', 'via', 'over']);
const NEGATION = new Set(['no', 'not', "don't", 'dont', 'without', 'never', 'skip']);

interface Word {
  text: string;
  /** Lowercased, without the punctuation around it. */
  bare: string;
  start: number;
  end: number;
}

/** The words of a sentence with their places in the whole text (punctuation around a word dropped, not inside it). */
function wordsOf(text: string, from: number, to: number): Word[] {
  const out: Word[] = [];
  for (const m of text.slice(from, to).matchAll(/\S+/g)) {
    const raw = m[0];
    const lead = raw.length - raw.replace(/^[("'`<[]+/, '').length;
    const core = raw.slice(lead).replace(/[)"'`>\],;:!?.]+$/, '');
    if (!core) continue;
    const start = from + (m.index ?? 0) + lead;
    out.push({ text: core, bare: core.toLowerCase(), start, end: start + core.length });
  }
  return out;
}

interface Said {
  s3: boolean;
  aws: boolean;
  local: boolean;
  url?: string;
  user?: string;
  host?: string;
  port?: number;
  path?: string;
  bucket?: string;
  endpoint?: string;
  region?: string;
}

const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$|^(?:\d{1,3}\.){3}\d{1,3}$/i;
const LOGIN = /^([a-z0-9_][a-z0-9_.-]{0,63})@([a-z0-9.-]+?)(?::(\d{1,5}))?(?::(\/?[\w.~+/-]*))?$/i;
const HOST_PORT = /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}|(?:\d{1,3}\.){3}\d{1,3})(?::(\d{1,5}))?$/i;
const PATHLIKE = /^~?\/[\w.~+/-]*$/;

/**
 * One word read into what is said so far; false when the word is not one a destination is said with
 * (the span ends before it). `slot` is the slot word before it, whose value it is.
 */
function readWord(w: Word, slot: Slot | undefined, said: Said): boolean {
  if (slot) {
    if (slot === 'port' && /^\d{1,5}$/.test(w.bare)) said.port = Number(w.bare);
    else if (slot === 'user' && /^[a-z0-9_][a-z0-9_.-]*$/i.test(w.text)) said.user = w.text;
    else if (slot === 'bucket' && /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(w.text) && !NOT_A_NAME.has(w.bare)) said.bucket = w.text;
    else if (slot === 'endpoint' && (/^https?:\/\//i.test(w.text) || HOSTNAME.test(w.text))) said.endpoint = w.text;
    else if (slot === 'region' && /^[a-z]{2}(?:-[a-z]+)+-\d$/i.test(w.text)) said.region = w.bare;
    else if (slot === 'path' && /^~?[\w.~+/-]+$/.test(w.text)) said.path = w.text;
    else return false;
    return true;
  }
  if (/^(?:sftp|s3):/i.test(w.text)) said.url = w.text;
  else if (/^https?:\/\//i.test(w.text)) said.endpoint = w.text;
  else if (LOGIN.test(w.text)) {
    const [, user, host, port, path] = LOGIN.exec(w.text)!;
    Object.assign(said, { user, host: host!.replace(/\.$/, '') }, port ? { port: Number(port) } : {}, path ? { path } : {});
  } else if (HOST_PORT.test(w.text)) {
    const [, host, port] = HOST_PORT.exec(w.text)!;
    said.host = host!.toLowerCase();
    if (port) said.port = Number(port);
  }
  else if (PATHLIKE.test(w.text)) said.path = w.text;
  else if (S3_WORDS.has(w.bare)) {
    said.s3 = true;
    if (w.bare === 'aws' || w.bare === 'amazon') said.aws = true;
  } else if (LOCAL_WORDS.has(w.bare)) said.local = true;
  else if (!FILLER.has(w.bare) && !(w.bare === 'and' || w.bare === 'as')) return false;
  return true;
}

/** Reads words from `i` on while they say a destination: what was said, the last word that said something, the last word read. */
function readSpan(words: Word[], i: number): { said: Said; last: number; end: number } {
  const said: Said = { s3: false, aws: false, local: false };
  let last = i - 1;
  let end = i - 1;
  for (let k = i; k < words.length; k++) {
    const w = words[k]!;
    const slot = SLOTS[w.bare];
    if (slot && k + 1 < words.length) {
      // "bucket named x", "user: x": filler between a slot word and its value.
      let v = k + 1;
      while (v < words.length - 1 && (w.bare === 'bucket' ? ['named', 'called', 'is'] : ['is', '=']).includes(words[v]!.bare)) v++;
      if (readWord(words[v]!, slot, said)) {
        if (slot === 'bucket') said.s3 = true;
        last = end = k = v;
        continue;
      }
    }
    // "and", "as" go on only into another slot ("… port 23 and user restic", "as user restic").
    if ((w.bare === 'and' || w.bare === 'as') && !SLOTS[words[k + 1]?.bare ?? '']) break;
    if (!readWord(w, undefined, said)) break;
    end = k;
    if (!FILLER.has(w.bare)) last = k;
  }
  return { said, last, end };
}

/** A word a destination can be said with, read alone (for reading back from a backup word). */
function destinationWord(words: Word[], at: number): boolean {
  const w = words[at]!;
  if (SLOTS[w.bare]) return true;
  const slot = SLOTS[words[at - 1]?.bare ?? ''];
  return readWord(w, slot, { s3: false, aws: false, local: false }) && w.bare !== 'and' && w.bare !== 'as';
}

/** "my server", "the VPS": the stack's own server ("my other server", "a second machine", "my backup server" are not). */
const ownServer = (words: Word[]): boolean =>
  words.some((w, i) => ['server', 'machine', 'vps'].includes(w.bare) && ['my', 'our', 'the', 'this'].includes(words[i - 1]?.bare ?? '') && !words.slice(Math.max(0, i - 3), i).some((x) => OTHER.has(x.bare)));
const OTHER = new Set(['other', 'another', 'second', 'separate', 'remote', 'backup', 'storage', 'offsite', 'off-site']);

/** "on the server", "on this machine", "locally": the backups stay where the stack is. */
const onServer = (words: Word[]): boolean =>
  words.some((w) => w.bare === 'locally') || words.some((w, i) => w.bare === 'on' && ['server', 'machine'].includes(words.slice(i + 1, i + 4).find((x) => !['the', 'this', 'that', 'same', 'our', 'its'].includes(x.bare))?.bare ?? ''));

const valued = (s: Said): boolean => Boolean(s.url || s.host || s.bucket || s.endpoint);

/** The place the words name, or why they name none. */
function placeOfSaid(s: Said): { place?: BackupPlace; problem?: string } {
  if (s.url) {
    if (/^sftp:(?:\/\/)?[^@/]*:[^@/]*@/i.test(s.url)) return { problem: 'a password in the destination is not kept: the backup host is opened with the User Secret BACKUP_SSH_KEY' };
    const s3Url = /^s3:\/\/([^/]+)(?:\/(.*))?$/i.exec(s.url);
    const place = s3Url ? { kind: 's3' as const, endpoint: AWS_S3_ENDPOINT, bucket: s3Url[1]!, ...(s3Url[2] ? { prefix: s3Url[2] } : {}) } : placeOf(s.url);
    if (!place) return { problem: `"${s.url}" is not a destination I can use (sftp:user@host:/path or s3:https://host/bucket)` };
    const problem = placeProblem(place);
    return problem ? { problem } : { place };
  }
  if (s.s3 || s.bucket) {
    if (!s.bucket) return {};
    let endpoint = s.endpoint ?? (s.host && !s.aws ? `${s.host}${s.port ? `:${s.port}` : ''}` : undefined) ?? (s.region ? `https://s3.${s.region}.amazonaws.com` : AWS_S3_ENDPOINT);
    if (!/^https?:\/\//i.test(endpoint)) endpoint = `https://${endpoint}`;
    const url = /^(https?:\/\/[^/]+)(?:\/(.*))?$/i.exec(endpoint)!;
    const place: BackupPlace = { kind: 's3', endpoint: url[1]!.toLowerCase(), bucket: s.bucket, ...(s.path ?? url[2] ? { prefix: (s.path ?? url[2])!.replace(/^\//, '') } : {}) };
    const problem = placeProblem(place);
    return problem ? { problem } : { place };
  }
  if (!s.host) return {};
  const place: BackupPlace = { kind: 'sftp', host: s.host, port: s.port ?? 22, path: s.path?.replace(/^~\/?/, '') || DEFAULT_SFTP_PATH, ...(s.user ? { user: s.user } : {}) };
  const problem = placeProblem(place);
  return problem ? { problem } : { place };
}

/** Sentences: split at . ! ? ; and line ends followed by a space or the end (a host's dots stay inside). */
function sentences(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  for (const m of text.matchAll(/[.!?;]+(?=\s|$)|\n+/g)) {
    out.push([from, m.index ?? 0]);
    from = (m.index ?? 0) + m[0].length;
  }
  out.push([from, text.length]);
  return out;
}

/** What a text says of the backup destination (the last thing said wins), and the text without those words. */
export function readBackupWords(text: string): BackupWords {
  const result: BackupWords = { problems: [], rest: text };
  const blank = (from: number, to: number): void => void (result.rest = result.rest.slice(0, from) + ' '.repeat(to - from) + result.rest.slice(to));
  for (const [from, to] of sentences(text)) {
    const words = wordsOf(text, from, to);
    for (let k = 0; k < words.length; k++) {
      const w = words[k]!;
      // "back up", "backed up", "backing up", "backups", "back-ups", "restic".
      const isBack = /^back(?:ed|ing)?$/.test(w.bare) && words[k + 1]?.bare === 'up';
      if (!isBack && !BACKUP_WORD.test(w.bare)) continue;
      const keyEnd = isBack ? k + 1 : k;
      const negated = words.slice(Math.max(0, k - 3), k).some((x) => NEGATION.has(x.bare));
      const after = readSpan(words, keyEnd + 1);
      let { said, last } = after;
      let first = keyEnd + 1;
      if (!valued(said)) {
        // Said before the backup word: "use sftp:restic@nas:/srv for backups", "S3 bucket app-data for the backups".
        let start = k;
        while (start > 0 && destinationWord(words, start - 1)) start--;
        const before = readSpan(words.slice(0, k), start);
        if (valued(before.said)) {
          said = before.said;
          last = before.last;
          first = start;
        }
      }
      if (negated) {
        // "no off-site backups": on the server. "don't back up to S3": nothing chosen by it.
        if (words.some((x) => ['off-site', 'offsite', 'off-server'].includes(x.bare))) result.destination = null;
        continue;
      }
      if (valued(said) && !said.s3 && ownServer(words.slice(first, last + 1))) {
        // "nightly backups on my server deploy@…": the stack's own server, not a place to send them.
        continue;
      }
      if (valued(said)) {
        const { place, problem } = placeOfSaid(said);
        if (place) result.destination = destinationOf(place);
        if (problem) result.problems.push(problem);
        // The words are about the backup whatever became of them: not the stack's domain nor its server.
        blank(words[first]!.start, words[Math.max(first, last)]!.end);
        k = Math.max(k, last);
      } else if (onServer(words.slice(keyEnd + 1, after.end + 1))) {
        result.destination = null;
      } else if (said.s3 && !said.bucket) {
        result.problems.push('an S3-compatible destination needs the bucket\'s name (and its endpoint, unless it is Amazon S3)');
      }
    }
  }
  return result;
}
