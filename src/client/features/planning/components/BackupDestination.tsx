import { useId, useState, type FormEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import { DEFAULT_SFTP_PATH, destinationOf, destinationText, placeOf, placeProblem, type BackupPlace } from '../../../../shared/backupDestination';
import type { StackModel } from '../../../../shared/stackModel';
import type { StackOp } from '../../../../shared/stackOps';
import { Button } from '../../../common/components/Button';
import { Label, TextInput } from '../../../common/components/Field';
import { Muted } from './CatalogueSearch';

type Kind = 'sftp' | 's3';

/** The User Secrets each kind of destination is opened with: typed under User Secrets, never here. */
const SECRETS: Record<Kind, string> = {
  sftp: 'BACKUP_PASSWORD (encrypts the backups) and BACKUP_SSH_KEY (a private key the backup host accepts)',
  s3: 'BACKUP_PASSWORD (encrypts the backups), BACKUP_S3_ACCESS_KEY_ID and BACKUP_S3_SECRET_ACCESS_KEY (the store’s keys)',
};

/**
 * Where the backups go, chosen in the Collected Requirements panel: another SSH host (host, port, user,
 * folder) or a bucket of an S3-compatible store (endpoint, bucket, folder). It sends `setBackup` with the
 * restic repository the fields make (shared/backupDestination.ts, as the words in the chat do), or
 * `destination: null` to keep them on the server. Credentials are never asked here: the text names the
 * User Secrets they go to.
 */
export function BackupDestination({ model, disabled, run }: { model: StackModel; disabled: boolean; run: (ops: StackOp[], said: string) => Promise<void> }): ReactElement {
  const id = useId();
  const current = model.backup.destination;
  const place = current ? placeOf(current) : undefined;
  const [kind, setKind] = useState<Kind>(place?.kind ?? 'sftp');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const field = (name: string): string => fields[name] ?? '';
  const input = (name: string, label: string, placeholder: string, numeric = false): ReactElement => (
    <div>
      <Label htmlFor={`${id}-${name}`}>{label}</Label>
      <TextInput
        id={`${id}-${name}`}
        value={field(name)}
        placeholder={placeholder}
        inputMode={numeric ? 'numeric' : undefined}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => {
          setFields((f) => ({ ...f, [name]: numeric ? e.target.value.replace(/\D/g, '') : e.target.value.trim() }));
          setProblem(null);
        }}
      />
    </div>
  );

  const chosen = (): BackupPlace =>
    kind === 'sftp'
      ? { kind, host: field('host').toLowerCase(), port: Number(field('port') || 22), path: field('path') || DEFAULT_SFTP_PATH, ...(field('user') ? { user: field('user') } : {}) }
      : { kind, endpoint: (/^https?:\/\//i.test(field('endpoint')) ? field('endpoint') : `https://${field('endpoint')}`).replace(/\/+$/, '').toLowerCase(), bucket: field('bucket'), ...(field('prefix') ? { prefix: field('prefix').replace(/^\/+/, '') } : {}) };

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    const p = chosen();
    const wrong = placeProblem(p);
    if (wrong) {
      setProblem(wrong);
      return;
    }
    const destination = destinationOf(p);
    void run([{ op: 'setBackup', destination }], `Backups go to ${destinationText(destination)}.`).then(() => setFields({}));
  };
  const ready = kind === 'sftp' ? Boolean(field('host')) : Boolean(field('endpoint') && field('bucket'));

  return (
    <Box aria-label="Backups">
      <h3>Backups</h3>
      <p>
        {current ? (
          <>Nightly, encrypted, to {destinationText(current)}.</>
        ) : (
          <Muted>On the server only: no destination is chosen, so a lost server takes its backups with it.</Muted>
        )}
      </p>
      <details>
        <summary>{current ? 'Change where backups go' : 'Choose where backups go'}</summary>
        <form onSubmit={onSubmit} aria-label="Backup destination">
          <fieldset>
            <legend>Destination</legend>
            <label>
              <input type="radio" name={`${id}-kind`} checked={kind === 'sftp'} onChange={() => setKind('sftp')} /> Another SSH host (SFTP)
            </label>
            <label>
              <input type="radio" name={`${id}-kind`} checked={kind === 's3'} onChange={() => setKind('s3')} /> An S3-compatible bucket
            </label>
          </fieldset>
          <Grid>
            {kind === 'sftp' ? (
              <>
                {input('host', 'Host', 'u123.your-storagebox.de')}
                {input('port', 'Port', '22', true)}
                {input('user', 'User', 'u123')}
                {input('path', 'Folder', DEFAULT_SFTP_PATH)}
              </>
            ) : (
              <>
                {input('endpoint', 'Endpoint', 'https://s3.eu-central-003.backblazeb2.com')}
                {input('bucket', 'Bucket', 'app-backups')}
                {input('prefix', 'Folder in the bucket', 'optional')}
              </>
            )}
          </Grid>
          <Muted as="p">Credentials go under User Secrets, never here: {SECRETS[kind]}.</Muted>
          {problem && <Problem role="alert">{problem}</Problem>}
          <Row>
            <Button $size="sm" type="submit" disabled={disabled || !ready}>
              Set destination
            </Button>
            {current && (
              <Button $size="sm" type="button" disabled={disabled} onClick={() => void run([{ op: 'setBackup', destination: null }], 'Backups stay on the server: no destination.')}>
                Keep backups on the server
              </Button>
            )}
          </Row>
        </form>
      </details>
    </Box>
  );
}

const Box = styled.section`
  display: grid;
  gap: ${({ theme }) => theme.space(2)};
  h3 { margin: 0; font-size: ${({ theme }) => theme.fontSizes.md}; }
  p { margin: 0; font-size: ${({ theme }) => theme.fontSizes.sm}; }
  summary { cursor: pointer; font-size: ${({ theme }) => theme.fontSizes.xs}; color: ${({ theme }) => theme.colors.textMuted}; }
  fieldset { border: none; padding: 0; margin: ${({ theme }) => theme.space(2)} 0; display: flex; gap: ${({ theme }) => theme.space(3)}; flex-wrap: wrap; }
  legend { font-weight: 600; font-size: ${({ theme }) => theme.fontSizes.sm}; }
`;

const Grid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr));
  gap: ${({ theme }) => theme.space(2)};
`;

const Row = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
  margin-top: ${({ theme }) => theme.space(2)};
`;

const Problem = styled.p`
  color: ${({ theme }) => theme.colors.dangerOnSurface};
`;
