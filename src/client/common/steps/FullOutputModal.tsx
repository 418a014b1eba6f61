import { useEffect, type ReactElement } from 'react';
import { FULL_OUTPUT_MODAL } from '../../../shared/constants';
import { Button } from '../components/Button';
import { Dialog, DialogActions } from '../components/Dialog';
import { TextBlock } from '../components/TextBlock';
import { logError } from '../log';

/**
 * The 'Full Output' modal of a step card (part 2 section 2): the info hint, the whole output, Close
 * and Copy to Clipboard. Escape and a click on the overlay close it (the Dialog, plus a document
 * listener so Escape works wherever focus is); the page does not scroll while it is open.
 */
export function FullOutputModal({ output, onClose }: { output: string; onClose: () => void }): ReactElement {
  useEffect(() => {
    const { body } = document;
    const previous = body.style.overflow;
    body.style.overflow = 'hidden';
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      body.style.overflow = previous;
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [onClose]);

  const copy = (): void => {
    navigator.clipboard?.writeText(output).catch((error: unknown) => logError('execution.copyOutput', error));
  };

  return (
    <Dialog title={FULL_OUTPUT_MODAL.title} description={FULL_OUTPUT_MODAL.hint} onClose={onClose} width="900px">
      <TextBlock $maxHeight="60vh" tabIndex={0} aria-label={FULL_OUTPUT_MODAL.title}>
        {output}
      </TextBlock>
      <DialogActions>
        <Button onClick={onClose}>{FULL_OUTPUT_MODAL.close}</Button>
        <Button $variant="primary" onClick={copy}>
          {FULL_OUTPUT_MODAL.copy}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
