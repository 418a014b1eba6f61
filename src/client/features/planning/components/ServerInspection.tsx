import { useState, type ReactElement } from 'react';
import styled from 'styled-components';
import type { ServerInspectionResult } from '../../../../shared/api/serverInspection';
import { describeServerFacts } from '../../../../shared/serverFactsText';
import { errorMessage } from '../../../api/apiSlice';
import { Button } from '../../../common/components/Button';
import { ErrorText } from '../../../common/components/Field';
import { MutedText } from '../../../common/components/Layout';
import { Spinner } from '../../../common/components/Spinner';
import { TextBlock } from '../../../common/components/TextBlock';
import { useGetServerInspectionQuery, useRunServerInspectionMutation } from '../serverInspectionApi';
import { Panel, PanelHeader, StatusText } from './StageLayout';

export interface ServerInspectionProps {
  projectId: number;
  /**
   * Makes the plan again from what was found, offered while the saved plan (verified again against the facts
   * by the server) has an error: the person decides, since with a real model it is a paid turn.
   */
  remake?: () => void;
}

/**
 * "Your server" on the architecture step, when the stack goes on the person's existing server: the exact
 * read-only command that reads what the server already runs, run only when the person approves it, then
 * what it found (or, when the server cannot be reached, why, and that the plan goes on without it). The
 * server verifies the saved plan again against what was found, so its findings (a port the server already
 * uses) show on the plan at once. A plan for a new machine has nothing to inspect and shows nothing here.
 */
export function ServerInspection({ projectId, remake }: ServerInspectionProps): ReactElement | null {
  const { data: offer } = useGetServerInspectionQuery(projectId);
  const [run, { isLoading: running }] = useRunServerInspectionMutation();
  const [result, setResult] = useState<ServerInspectionResult | null>(null);
  const [callError, setCallError] = useState<string | null>(null);
  if (!offer || offer.target_kind === 'new') return null;

  const onApprove = async (): Promise<void> => {
    if (!offer.command) return;
    setCallError(null);
    setResult(null);
    try {
      const answer = await run({ projectId, command: offer.command }).unwrap();
      setResult(answer);
    } catch (err) {
      setCallError(errorMessage(err, 'The inspection could not be started'));
    }
  };

  const facts = result?.facts ?? offer.facts;
  return (
    <Panel aria-label="Your server">
      <PanelHeader>
        <h2>Your server{offer.target ? `: ${offer.target}` : ''}</h2>
        {offer.available && (
          <Button $size="sm" $variant={facts ? 'secondary' : 'primary'} onClick={() => void onApprove()} disabled={running}>
            {facts ? 'Inspect the server again' : 'Approve and inspect the server'}
          </Button>
        )}
      </PanelHeader>
      {offer.named_by_secrets && (
        <MutedText>
          The server your User Secrets {offer.named_by_secrets.join(' and ')} name: the command reads their values in your workspace, as the deploy does, and they are
          not shown here.
        </MutedText>
      )}
      {!offer.available && <MutedText>{offer.reason}</MutedText>}
      {offer.available && !facts && !result && (
        <MutedText>
          Before the plan is final, read what this server already runs (ports in use, containers and compose projects, OS, Docker and Compose versions, free
          disk), so the plan takes free ports instead of failing when it starts. The command only reads; it runs in your workspace once you approve it.
        </MutedText>
      )}
      {offer.command && (
        <details open={!facts}>
          <summary>The command that runs</summary>
          <Command $maxHeight="16rem" tabIndex={0} aria-label="Inspection command">
            {offer.command}
          </Command>
        </details>
      )}
      {running && <Spinner label={`Inspecting ${offer.target ?? 'the server'}…`} />}
      {callError && <ErrorText>{callError}</ErrorText>}
      {result?.status === 'failed' && (
        <>
          <ErrorText>{result.detail}</ErrorText>
          <MutedText>You can go on without it: the plan is made without facts about the server, and the deploy checks the server again when it starts.</MutedText>
        </>
      )}
      {facts && !running && (
        <section aria-label="What the server runs">
          <StatusText>
            {result?.status === 'completed' ? 'Found' : `Inspected ${new Date(facts.inspectedAt).toLocaleString()}`}: {describeServerFacts(facts)}
          </StatusText>
          {facts.hostKey?.firstContact && (
            <MutedText>
              Its SSH host key was seen for the first time and is now pinned: compare <code>{facts.hostKey.fingerprint}</code> with what the server&apos;s own console
              shows (<code>ssh-keygen -lf /etc/ssh/ssh_host_{facts.hostKey.algorithm.toLowerCase()}_key.pub</code>) before you deploy. From now on the inspection and the
              deploy refuse any other key.
            </MutedText>
          )}
          {result?.status === 'completed' && result.not_read.length > 0 && (
            <NotRead>
              {result.not_read.map((n) => (
                <li key={n}>Not read: {n}</li>
              ))}
            </NotRead>
          )}
          {result?.status === 'completed' && <StatusText>The plan&apos;s findings are checked again against what was found.</StatusText>}
          {remake && (
            <Remake>
              <MutedText>The plan has an error to fix (its findings say which): make it again from what was found, or ask the assistant.</MutedText>
              <Button $size="sm" onClick={remake}>
                Make the plan again from what was found
              </Button>
            </Remake>
          )}
        </section>
      )}
    </Panel>
  );
}

const Command = styled(TextBlock)`
  margin-top: ${({ theme }) => theme.space(2)};
`;

const Remake = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  margin-top: ${({ theme }) => theme.space(2)};
`;

const NotRead = styled.ul`
  margin: ${({ theme }) => theme.space(1)} 0 0;
  padding-left: ${({ theme }) => theme.space(4)};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
