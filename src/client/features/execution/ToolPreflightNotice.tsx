import { useEffect, useMemo, type ReactElement } from 'react';
import styled from 'styled-components';
import type { SandboxMissingTool } from '../../../shared/api/sandbox';
import { useAppSelector } from '../../app/hooks';
import { executionApi } from './executionApi';
import { toViewSteps } from '../../common/steps/stepModel';
import { sandboxControlApi } from '../../common/sandbox/sandboxControlApi';
import { selectSandboxInit } from '../../common/sandbox/sandboxSlice';

/** Ours: the spec has no tool check; the wording says what was checked and what follows, nothing more. */
const TITLE = 'Tools missing from the sandbox';
const EXPLANATION = 'These steps will fail with "command not found" unless an earlier step installs the tool.';

const stepsText = (steps: number[]): string => `${steps.length === 1 ? 'step' : 'steps'} ${steps.join(', ')}`;

/**
 * The tool preflight of the sandbox's last initialisation, shown in the execution stage before step 1:
 * each program the implementation plan calls that the sandbox did not have, with the steps that call it.
 * Nothing when every tool is there (or before any check). Asked again when an initialisation finishes.
 * A tool whose steps have all completed is dropped (they ran, so it was there or got installed): the
 * warning goes once the steps have run, instead of staying after a successful run.
 */
export function ToolPreflightNotice({ projectId }: { projectId: number }): ReactElement | null {
  const init = useAppSelector(selectSandboxInit);
  const { data, refetch } = sandboxControlApi.useGetSandboxPreflightQuery(projectId, { refetchOnMountOrArgChange: true });
  const finished = init.projectId === projectId && (init.phase === 'starting' || init.phase === 'done');
  useEffect(() => {
    if (finished) void refetch();
  }, [finished, refetch]);

  // The progress the stage already polls (this reads its cache, it starts no polling of its own).
  const selectProgress = useMemo(() => executionApi.endpoints.getExecutionProgress.select(projectId), [projectId]);
  const progress = useAppSelector(selectProgress).data;
  const completed = new Set(Array.isArray(progress?.steps) ? toViewSteps(progress.steps).filter((s) => s.status === 'completed').map((s) => s.number) : []);
  const missing: SandboxMissingTool[] = (data?.missing_tools ?? []).filter(({ steps }) => !steps.every((n) => completed.has(n)));
  if (missing.length === 0) return null;
  return (
    <Notice role="status" aria-label={TITLE}>
      <h3>{TITLE}</h3>
      <ul>
        {missing.map(({ tool, steps }) => (
          <li key={tool}>
            <code>{tool}</code> — {stepsText(steps)}
          </li>
        ))}
      </ul>
      <p>{EXPLANATION}</p>
    </Notice>
  );
}

const Notice = styled.div`
  padding: ${({ theme }) => theme.space(4)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.warning};
  background: ${({ theme }) => theme.colors.surface};
  ul { margin: ${({ theme }) => theme.space(2)} 0; padding-left: ${({ theme }) => theme.space(5)}; }
  code { font-family: ${({ theme }) => theme.fonts.mono}; }
  p { margin: 0; color: ${({ theme }) => theme.colors.textMuted}; font-size: ${({ theme }) => theme.fontSizes.sm}; }
`;
