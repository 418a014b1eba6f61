import { useId, useState, type ReactElement, type ReactNode } from 'react';
import styled from 'styled-components';
import { PHONE_MAX_WIDTH, Sidebar } from './Layout';

export interface CollapsibleSidebarProps {
  /** The landmark's name. */
  label: string;
  /** Always shown: on a phone, the top bar beside the toggle. */
  heading: ReactNode;
  /** The phone's toggle text, naming what it opens ('Stages', 'Menu'). */
  toggleLabel: string;
  /** Controlled open state (a page closes it after a choice); uncontrolled without it. */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  children: ReactNode;
}

/**
 * The sidebar of the workspace pages. On a wide screen it is the usual column; on a phone it is a
 * top bar (heading + one toggle) so that the page opens on the work, and the rest of the sidebar is a
 * tap away instead of a full screen the person has to scroll past.
 */
export function CollapsibleSidebar({ label, heading, toggleLabel, open, onOpenChange, children }: CollapsibleSidebarProps): ReactElement {
  const [ownOpen, setOwnOpen] = useState(false);
  const isOpen = open ?? ownOpen;
  const bodyId = useId();
  const toggle = (): void => {
    setOwnOpen(!isOpen);
    onOpenChange?.(!isOpen);
  };
  return (
    <Sidebar aria-label={label}>
      <Top>
        {heading}
        <Toggle type="button" aria-expanded={isOpen} aria-controls={bodyId} onClick={toggle}>
          {toggleLabel}
          <span aria-hidden="true">{isOpen ? ' ▴' : ' ▾'}</span>
        </Toggle>
      </Top>
      <Body id={bodyId} data-open={isOpen}>
        {children}
      </Body>
    </Sidebar>
  );
}

const Top = styled.div`
  display: flex;
  align-items: flex-start;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(3)};
  min-width: 0;
  & > :first-child { min-width: 0; }
`;

const Toggle = styled.button`
  display: none;
  flex: none;
  padding: ${({ theme }) => `${theme.space(1.5)} ${theme.space(3)}`};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  font-weight: 600;
  cursor: pointer;
  white-space: pre;
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    display: inline-flex;
  }
`;

/** On a wide screen the body's children are the sidebar's own flex items (its gaps and footer hold). */
const Body = styled.div`
  display: contents;
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    display: flex;
    flex-direction: column;
    gap: ${({ theme }) => theme.space(4)};
    &[data-open='false'] { display: none; }
  }
`;
