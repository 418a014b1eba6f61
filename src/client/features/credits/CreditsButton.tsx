import { useState, type ReactElement } from 'react';
import { HOME } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { CreditsDialog } from './CreditsDialog';

/** 'View & Add Credits' in the home sidebar: opens the credits dialog. */
export function CreditsButton(): ReactElement {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button $block onClick={() => setOpen(true)}>
        {HOME.creditsButton}
      </Button>
      {open && <CreditsDialog onClose={() => setOpen(false)} />}
    </>
  );
}
