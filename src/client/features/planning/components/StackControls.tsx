import { useId, useState, type FormEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import type { CatalogueProduct } from '../../../../shared/api/stack';
import type { Component, StackModel } from '../../../../shared/stackModel';
import type { StackOp } from '../../../../shared/stackOps';
import { PLANNING_TIMING } from '../../../../shared/constants';
import { Button } from '../../../common/components/Button';
import { Label, TextInput } from '../../../common/components/Field';
import { useApplyStackOpsMutation, useGetStackQuery } from '../stackApi';
import { BackupDestination } from './BackupDestination';
import { CatalogueSearch, Muted } from './CatalogueSearch';

const POLL = { pollingInterval: PLANNING_TIMING.dataPollMs, skipPollingIfUnfocused: true } as const;

/** How a component is reached, in words: "public at cloud.example.org (HTTPS)", "port 3307", "private". */
export function exposureText(model: StackModel, component: Component): string {
  const ways = model.exposures
    .filter((e) => e.component === component.name)
    .map((e) =>
      e.via === 'proxy'
        ? e.domain
          ? `public at ${e.domain}${e.tls ? ' (HTTPS)' : ' (HTTP)'}`
          : "public on the server's address"
        : `${e.bind === 'loopback' ? 'local ' : ''}port ${e.hostPort}`,
    );
  if (ways.length) return ways.join(', ');
  return component.keepPrivate ? 'kept private' : 'not published';
}

function labelOf(component: Component, catalogue: readonly CatalogueProduct[]): string {
  if (component.source.kind === 'image') return component.source.image;
  const id = component.source.id;
  return catalogue.find((c) => c.id === id)?.label ?? id;
}

/** Who a component was added for ("added for nextcloud"), when nobody named it. */
function addedFor(model: StackModel, component: Component): string | undefined {
  if (!component.auto) return undefined;
  const users = model.links.filter((l) => l.to === component.name).map((l) => l.from);
  const fronted = model.exposures.filter((e) => e.via === 'proxy' && e.proxy === component.name).map((e) => e.component);
  const all = [...new Set([...users, ...fronted])];
  return all.length ? `added for ${all.join(', ')}` : 'added by default';
}

/**
 * The stack's components in the Collected Requirements panel, each a person can remove or change (its
 * domain, a host port, public or private), and the catalogue to add from. Every control sends stack
 * operations to the server, which answers the model and renders the requirements text from it; an
 * operation it refuses says why here.
 */
export function StackControls({ projectId, busy }: { projectId: number; busy: boolean }): ReactElement | null {
  const { data } = useGetStackQuery(projectId, POLL);
  const [apply, { isLoading }] = useApplyStackOpsMutation();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  if (!data) return null;
  const { model, catalogue } = data;
  const disabled = busy || isLoading;

  const run = async (ops: StackOp[], said: string): Promise<void> => {
    setError(null);
    setDone(null);
    try {
      await apply({ projectId, ops }).unwrap();
      setDone(said);
    } catch (err) {
      setError((err as { message?: string }).message ?? 'The change could not be made.');
    }
  };

  const present = new Set(model.components.flatMap((c) => (c.source.kind === 'catalogue' ? [c.source.id] : [])));

  return (
    <Box aria-label="Stack components">
      <h3>Components</h3>
      {model.components.length === 0 ? (
        <Muted as="p">Nothing in the stack yet: describe it in the chat, or add from the catalogue.</Muted>
      ) : (
        <Items>
          {model.components.map((c) => (
            <ComponentItem key={c.name} component={c} model={model} label={labelOf(c, catalogue)} disabled={disabled} run={run} />
          ))}
        </Items>
      )}
      <CatalogueSearch
        catalogue={catalogue}
        present={present}
        disabled={disabled}
        onAdd={(item) => void run([{ op: 'addComponent', product: item.id }], `Added ${item.label}.`)}
      />
      <BackupDestination model={model} disabled={disabled} run={run} />
      {error && <ErrorText role="alert">{error}</ErrorText>}
      {done && !error && <Muted role="status">{done}</Muted>}
    </Box>
  );
}

function ComponentItem({
  component,
  model,
  label,
  disabled,
  run,
}: {
  component: Component;
  model: StackModel;
  label: string;
  disabled: boolean;
  run: (ops: StackOp[], said: string) => Promise<void>;
}): ReactElement {
  const id = useId();
  const [domain, setDomain] = useState('');
  const [port, setPort] = useState('');
  const name = component.name;
  const exposed = model.exposures.some((e) => e.component === name);
  const why = addedFor(model, component);
  // Typing a domain or a port for a component kept private is the person's own decision to publish it.
  const confirm = component.keepPrivate ? { confirmPublic: true } : {};
  // Removing a catalogue product rules it out: a product that needs it would otherwise get it back by default.
  const remove: StackOp = component.source.kind === 'catalogue' ? { op: 'exclude', name: component.source.id } : { op: 'removeComponent', name };

  const onDomain = (event: FormEvent): void => {
    event.preventDefault();
    const host = domain.trim().toLowerCase();
    if (!host) return;
    const op: StackOp = component.keepPrivate ? { op: 'expose', component: name, via: 'proxy', domain: host, ...confirm } : { op: 'setDomain', component: name, domain: host };
    void run([op], `${name} is served at ${host}.`).then(() => setDomain(''));
  };
  const onPort = (event: FormEvent): void => {
    event.preventDefault();
    const hostPort = Number(port);
    if (!Number.isInteger(hostPort)) return;
    void run([{ op: 'expose', component: name, via: 'port', hostPort, ...confirm }], `${name} is published on port ${hostPort}.`).then(() => setPort(''));
  };

  return (
    <li aria-label={name}>
      <Head>
        <span>
          <strong>{label}</strong> <code>{name}</code> <Muted>{[exposureText(model, component), why].filter(Boolean).join(' · ')}</Muted>
        </span>
        <Button $size="sm" $variant="danger" disabled={disabled} aria-label={`Remove ${name}`} onClick={() => void run([remove], `Removed ${name}.`)}>
          Remove
        </Button>
      </Head>
      <details>
        <summary>Change {name}</summary>
        <Settings>
          <form onSubmit={onDomain} aria-label={`Domain of ${name}`}>
            <Label htmlFor={`${id}-domain`}>Domain</Label>
            <Row>
              <TextInput id={`${id}-domain`} value={domain} placeholder="app.example.com" onChange={(e) => setDomain(e.target.value)} />
              <Button $size="sm" type="submit" disabled={disabled || !domain.trim()}>
                Set domain
              </Button>
            </Row>
          </form>
          <form onSubmit={onPort} aria-label={`Port of ${name}`}>
            <Label htmlFor={`${id}-port`}>Host port</Label>
            <Row>
              <TextInput id={`${id}-port`} inputMode="numeric" value={port} placeholder="8080" onChange={(e) => setPort(e.target.value.replace(/\D/g, ''))} />
              <Button $size="sm" type="submit" disabled={disabled || !port}>
                Set port
              </Button>
            </Row>
          </form>
          {component.keepPrivate || !exposed ? (
            component.keepPrivate ? (
              <Button $size="sm" disabled={disabled} onClick={() => void run([{ op: 'expose', component: name, via: 'proxy', confirmPublic: true }], `${name} is public through the proxy.`)}>
                Make {name} public
              </Button>
            ) : (
              <Button $size="sm" disabled={disabled} onClick={() => void run([{ op: 'makePrivate', component: name }], `${name} is kept private.`)}>
                Keep {name} private
              </Button>
            )
          ) : (
            <Button $size="sm" disabled={disabled} onClick={() => void run([{ op: 'makePrivate', component: name }], `${name} is kept private.`)}>
              Make {name} private
            </Button>
          )}
        </Settings>
      </details>
    </li>
  );
}

const Box = styled.section`
  display: grid;
  gap: ${({ theme }) => theme.space(3)};
  padding-bottom: ${({ theme }) => theme.space(3)};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  h3 { margin: 0; font-size: ${({ theme }) => theme.fontSizes.md}; }
`;

const Items = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: ${({ theme }) => theme.space(2)};
  summary { cursor: pointer; font-size: ${({ theme }) => theme.fontSizes.xs}; color: ${({ theme }) => theme.colors.textMuted}; }
`;

const Head = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  code { font-size: ${({ theme }) => theme.fontSizes.xs}; }
`;

const Settings = styled.div`
  display: grid;
  gap: ${({ theme }) => theme.space(2)};
  padding: ${({ theme }) => theme.space(2)} 0;
`;

const Row = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
`;

const ErrorText = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.dangerOnSurface};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
