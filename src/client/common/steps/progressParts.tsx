import { useId, type ReactElement } from 'react';
import styled from 'styled-components';
import { Card } from '../components/Card';

/**
 * The parts of a step stage's progress panel (execution and validation): its card, overview and facts,
 * its on/off switches and its completion banner.
 */

/** A labelled on/off switch (a checkbox with role switch), shared with the validation panel. */
export function Switch({ label, checked, onChange }: { label: string; checked: boolean; onChange: (on: boolean) => void }): ReactElement {
  const id = useId();
  return (
    <SwitchLabel htmlFor={id}>
      <input id={id} type="checkbox" role="switch" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      <span aria-hidden="true" className="track" />
      {label}
    </SwitchLabel>
  );
}

export const Panel = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
  h2 { font-size: ${({ theme }) => theme.fontSizes.lg}; }
`;

export const Overview = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(5)};
`;

export const Facts = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
`;

export const Fact = styled.p`
  margin: 0;
  span { color: ${({ theme }) => theme.colors.textMuted}; }
`;

export const ToggleRow = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(5)};
`;

const SwitchLabel = styled.label`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  cursor: pointer;
  font-size: ${({ theme }) => theme.fontSizes.sm};
  input { position: absolute; opacity: 0; width: 1px; height: 1px; }
  .track {
    position: relative;
    width: 34px;
    height: 18px;
    border-radius: ${({ theme }) => theme.radii.round};
    background: ${({ theme }) => theme.colors.border};
    transition: background 120ms ease;
  }
  .track::after {
    content: '';
    position: absolute;
    top: 2px;
    left: 2px;
    width: 14px;
    height: 14px;
    border-radius: 50%;
    background: ${({ theme }) => theme.colors.text};
    transition: transform 120ms ease;
  }
  input:checked + .track { background: ${({ theme }) => theme.colors.success}; }
  input:checked + .track::after { transform: translateX(16px); }
  input:focus-visible + .track { outline: 2px solid ${({ theme }) => theme.colors.focus}; }
`;

export const Banner = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => theme.space(4)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.success};
  background: ${({ theme }) => theme.colors.successSurface};
`;

export const PanelTitle = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(2)};
`;
