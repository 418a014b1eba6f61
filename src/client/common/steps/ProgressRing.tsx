import type { ReactElement } from 'react';
import styled from 'styled-components';
import { EXECUTION } from '../../../shared/constants';

const STROKE = 8;

/** The circular percentage indicator (part 2 section 2), a ring of radius 35. */
export function ProgressRing({ percent }: { percent: number }): ReactElement {
  const radius = EXECUTION.progressRingRadius;
  const size = (radius + STROKE) * 2;
  const circumference = 2 * Math.PI * radius;
  const clamped = Math.min(100, Math.max(0, percent));
  return (
    <Svg width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={`${clamped}% complete`}>
      <circle className="track" cx={size / 2} cy={size / 2} r={radius} strokeWidth={STROKE} fill="none" />
      <circle
        className="value"
        cx={size / 2}
        cy={size / 2}
        r={radius}
        strokeWidth={STROKE}
        fill="none"
        strokeLinecap="round"
        strokeDasharray={circumference}
        strokeDashoffset={circumference * (1 - clamped / 100)}
        transform={`rotate(-90 ${size / 2} ${size / 2})`}
      />
      <text x="50%" y="50%" dominantBaseline="central" textAnchor="middle">
        {clamped}%
      </text>
    </Svg>
  );
}

const Svg = styled.svg`
  flex: none;
  .track { stroke: ${({ theme }) => theme.colors.border}; }
  .value { stroke: ${({ theme }) => theme.colors.success}; transition: stroke-dashoffset 300ms ease; }
  text { fill: ${({ theme }) => theme.colors.text}; font-size: 16px; font-weight: 700; }
`;
