import { useId, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { DEVOPS_HELPER_WARNING } from '../../../../shared/constants';
import { Button } from '../../../common/components/Button';
import { ButtonRow } from '../../../common/components/Card';
import { Dialog } from '../../../common/components/Dialog';

export interface WarningDialogProps {
  onAccept: () => void;
  /** Leaving without accepting (Escape, backdrop). */
  onClose: () => void;
}

/**
 * 'Important Notice' (part 2 sections 2 and 5): the helper's full command access, recommended usage,
 * and 'I Understand - Proceed', enabled only once the checkbox is ticked.
 */
export function WarningDialog({ onAccept, onClose }: WarningDialogProps): ReactElement {
  const [understood, setUnderstood] = useState(false);
  const checkboxId = useId();
  return (
    <Dialog title={DEVOPS_HELPER_WARNING.title} onClose={onClose} width="560px">
      <p>{DEVOPS_HELPER_WARNING.body}</p>
      <Usage>
        <strong>Recommended usage</strong>
        <ul>
          {DEVOPS_HELPER_WARNING.recommendedUsage.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </Usage>
      <Check>
        <input id={checkboxId} type="checkbox" checked={understood} onChange={(event) => setUnderstood(event.target.checked)} />
        <label htmlFor={checkboxId}>{DEVOPS_HELPER_WARNING.checkbox}</label>
      </Check>
      <ButtonRow>
        <Button $variant="primary" disabled={!understood} onClick={onAccept}>
          {DEVOPS_HELPER_WARNING.proceed}
        </Button>
      </ButtonRow>
    </Dialog>
  );
}

const Usage = styled.div`
  margin: ${({ theme }) => theme.space(3)} 0;
  ul { margin: ${({ theme }) => theme.space(1)} 0 0; padding-left: ${({ theme }) => theme.space(5)}; }
`;

const Check = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
  align-items: flex-start;
  margin-bottom: ${({ theme }) => theme.space(4)};
  input { margin-top: 3px; }
`;
