import { useState, type ReactElement } from 'react';
import type { Repository } from '../../../shared/api/repositories';
import { REQUIREMENTS_TEXT } from '../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Button } from '../../common/components/Button';
import { Chat } from '../../common/chat/Chat';
import { chatSaga } from '../../common/chat/chatSaga';
import { selectChatStreaming } from '../../common/chat/chatSlice';
import type { StagePanelProps } from '../../common/stages/types';
import { EnvironmentDialog } from './components/EnvironmentDialog';
import { RepositoryPicker } from './components/RepositoryPicker';
import { RequirementsPanel } from './components/RequirementsPanel';
import { StageColumns } from './components/StageLayout';
import { PLANNING_CHATS } from './planningChats';
import { planningSaga } from './planningSaga';
import { analysisRequested } from './planningSlice';
import { useRestoredChat } from './useRestoredChat';

type Step = { name: 'closed' } | { name: 'picking' } | { name: 'environment'; repository: Repository };

/**
 * The requirements stage (part 1 section 2): the 'Requirements Gatherer' chat beside 'Collected
 * Requirements', and the repository analysis that may come first: pick a repository, choose its
 * branch and environment blocks, then the analysis streams into the chat and requirements gathering
 * follows on its own.
 */
export function RequirementsStage({ projectId }: StagePanelProps): ReactElement {
  useInjectSaga(chatSaga, planningSaga);
  const dispatch = useAppDispatch();
  const key = useRestoredChat(projectId, 'requirements');
  const streaming = useAppSelector((state) => selectChatStreaming(state, key));
  const [step, setStep] = useState<Step>({ name: 'closed' });
  const close = (): void => setStep({ name: 'closed' });

  return (
    <StageColumns>
      <Chat
        chatKey={key}
        title={REQUIREMENTS_TEXT.chatTitle}
        endpoint={PLANNING_CHATS.requirements}
        placeholder="Describe what you want to run. Enter sends, Shift+Enter adds a line."
        intro="Tell the agent what you want to deploy, or analyse one of your repositories first."
        actions={
          <Button $size="sm" disabled={streaming} onClick={() => setStep({ name: 'picking' })}>
            Analyse a Repository
          </Button>
        }
      />
      <RequirementsPanel projectId={projectId} />
      {step.name === 'picking' && (
        <RepositoryPicker onClose={close} onSelect={(repository) => setStep({ name: 'environment', repository })} />
      )}
      {step.name === 'environment' && (
        <EnvironmentDialog
          repository={step.repository}
          onClose={close}
          onBack={() => setStep({ name: 'picking' })}
          onSubmit={({ branch, environment_configs }) => {
            close();
            dispatch(analysisRequested({ projectId, repository_data: step.repository, branch, environment_configs }));
          }}
        />
      )}
    </StageColumns>
  );
}
