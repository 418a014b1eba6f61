import { useState, type ReactElement } from 'react';
import { HOME } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { Dialog, DialogActions } from '../../common/components/Dialog';
import { MutedText } from '../../common/components/Layout';

/**
 * 'View & Add Credits' in the home sidebar. The credits dialog (balance, add-credits form,
 * transactions) belongs to the credits release; until then the button says so.
 */
export function CreditsButton(): ReactElement {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button $block onClick={() => setOpen(true)}>
        {HOME.creditsButton}
      </Button>
      {open && (
        <Dialog title="Credits" onClose={() => setOpen(false)}>
          <MutedText>Credits and payments are coming in a later release. Nothing is charged in this version.</MutedText>
          <DialogActions>
            <Button onClick={() => setOpen(false)}>Close</Button>
          </DialogActions>
        </Dialog>
      )}
    </>
  );
}
