import { useId, useRef, useState, type KeyboardEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import { PLANNING_TIMING, REQUIREMENTS_TEXT } from '../../../../shared/constants';
import { useAppSelector } from '../../../app/hooks';
import { chatKey, selectChatStreaming } from '../../../common/chat/chatSlice';
import { isAnalysis, useGetAnalysisQuery, useGetRequirementsQuery, useGetUserSecretsQuery } from '../planningApi';
import { canConfirmRequirements, missingRequiredCount } from '../planningRules';
import { AnalysisView } from './AnalysisView';
import { ConfirmButton } from './ConfirmButton';
import { CurrentRequirements } from './CurrentRequirements';
import { SecretsForm } from './SecretsForm';
import { StackControls } from './StackControls';
import { Panel, PanelHeader } from './StageLayout';
import { tabKeyTarget } from '../../../common/tabKeys';

type TabId = 'current' | 'analysis' | 'secrets';
const TAB_ORDER: TabId[] = ['current', 'analysis', 'secrets'];

const POLL = { pollingInterval: PLANNING_TIMING.dataPollMs, skipPollingIfUnfocused: true } as const;

/**
 * 'Collected Requirements' (part 1 section 2): the three tabs, the placeholders and the secrets badge,
 * and the confirm button with its rule. Requirements, analysis and secrets are polled every 5 s
 * while shown.
 */
export function RequirementsPanel({ projectId }: { projectId: number }): ReactElement {
  const requirementsQuery = useGetRequirementsQuery(projectId, POLL);
  const analysisQuery = useGetAnalysisQuery(projectId, POLL);
  const secretsQuery = useGetUserSecretsQuery(projectId, POLL);
  const generating = useAppSelector((state) => selectChatStreaming(state, chatKey(projectId, 'requirements')));
  const [chosen, setChosen] = useState<TabId>('current');
  const baseId = useId();
  const tabRefs = useRef<Partial<Record<TabId, HTMLButtonElement | null>>>({});

  // A failed load clears the data (part 1 section 8).
  const requirements = requirementsQuery.isError ? undefined : requirementsQuery.data;
  const analysis = isAnalysis(analysisQuery.data) ? analysisQuery.data : null;
  const secrets = secretsQuery.data?.secrets ?? [];
  const missing = missingRequiredCount(secrets);
  const enabled: Record<TabId, boolean> = { current: true, analysis: analysis !== null, secrets: secrets.length > 0 };
  const active: TabId = enabled[chosen] ? chosen : 'current';

  const onTabKeyDown = (event: KeyboardEvent<HTMLButtonElement>): void => {
    const next = tabKeyTarget(event.key, TAB_ORDER.filter((tab) => enabled[tab]), active);
    if (next === null) return;
    event.preventDefault();
    setChosen(next);
    tabRefs.current[next]?.focus();
  };

  const tab = (id: TabId, label: string, badge?: number): ReactElement => (
    <Tab
      key={id}
      ref={(element) => {
        tabRefs.current[id] = element;
      }}
      role="tab"
      id={`${baseId}-${id}-tab`}
      aria-controls={`${baseId}-${id}-panel`}
      aria-selected={active === id}
      tabIndex={active === id ? 0 : -1}
      disabled={!enabled[id]}
      onClick={() => setChosen(id)}
      onKeyDown={onTabKeyDown}
      $active={active === id}
    >
      {label}
      {badge !== undefined && badge > 0 && <Badge aria-label={`${badge} required not provided`}>{badge}</Badge>}
    </Tab>
  );

  return (
    <Panel aria-labelledby={`${baseId}-title`}>
      <PanelHeader>
        <h2 id={`${baseId}-title`}>{REQUIREMENTS_TEXT.panelTitle}</h2>
        <ConfirmButton
          projectId={projectId}
          stage="requirements"
          label="Confirm Requirements"
          enabled={canConfirmRequirements(requirements, generating)}
          hint="Available once the agent has collected every requirement and no reply is running"
        />
      </PanelHeader>
      {requirements?.ready_to_continue && <Ready>The requirements are complete; confirm to plan the architecture.</Ready>}
      <TabList role="tablist" aria-label={REQUIREMENTS_TEXT.panelTitle}>
        {tab('current', REQUIREMENTS_TEXT.tabs.current)}
        {tab('analysis', REQUIREMENTS_TEXT.tabs.analysis)}
        {tab('secrets', REQUIREMENTS_TEXT.tabs.secrets, missing)}
      </TabList>
      <div role="tabpanel" id={`${baseId}-${active}-panel`} aria-labelledby={`${baseId}-${active}-tab`} tabIndex={0}>
        {active === 'current' && (
          <>
            <StackControls projectId={projectId} busy={generating} />
            <CurrentRequirements content={requirements?.content} />
          </>
        )}
        {active === 'analysis' && analysis && <AnalysisView analysis={analysis} />}
        {active === 'secrets' && <SecretsForm projectId={projectId} secrets={secrets} />}
      </div>
    </Panel>
  );
}

/** The tabs wrap on a narrow panel: a strip that scrolled sideways hid a tab with no cue that it was there. */
const TabList = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(1)};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

const Tab = styled.button<{ $active: boolean }>`
  display: inline-flex;
  flex: none;
  white-space: nowrap;
  align-items: center;
  gap: ${({ theme }) => theme.space(1.5)};
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border: none;
  border-bottom: 2px solid ${({ theme, $active }) => ($active ? theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${({ theme, $active }) => ($active ? theme.colors.text : theme.colors.textMuted)};
  font-weight: 600;
  cursor: pointer;
  &:disabled { opacity: 0.45; cursor: not-allowed; }
`;

const Badge = styled.span`
  min-width: 18px;
  padding: 0 ${({ theme }) => theme.space(1.5)};
  border-radius: ${({ theme }) => theme.radii.round};
  background: ${({ theme }) => theme.colors.dangerFill};
  color: ${({ theme }) => theme.colors.primaryText};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  line-height: 18px;
  text-align: center;
`;

const Ready = styled.p`
  margin: 0;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.successSurface};
  color: ${({ theme }) => theme.colors.success};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
