import type { ReactElement } from 'react';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import type { Project } from '../../../../shared/api/projects';
import { HOME } from '../../../../shared/constants';
import { formatDate, formatDateTime } from '../../../common/format';
import { projectNavigationState } from '../../../common/navigationState';

/** One project: a link to its workspace carrying the project in navigation state. */
export function ProjectCard({ project }: { project: Project }): ReactElement {
  return (
    <CardLink to={String(project.id)} state={projectNavigationState(project)}>
      <Name>{project.name}</Name>
      <Description $empty={!project.description}>{project.description || HOME.noDescription}</Description>
      <Dates>
        <span>
          Created: <time dateTime={project.created_at}>{formatDate(project.created_at)}</time>
        </span>
        <span>
          Last Updated: <time dateTime={project.updated_at}>{formatDateTime(project.updated_at)}</time>
        </span>
      </Dates>
    </CardLink>
  );
}

const CardLink = styled(Link)`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
  min-height: 150px;
  padding: ${({ theme }) => theme.space(5)};
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
  color: inherit;
  text-decoration: none;
  transition: border-color 120ms ease, transform 120ms ease;
  &:hover {
    border-color: ${({ theme }) => theme.colors.primary};
    transform: translateY(-1px);
  }
`;

const Name = styled.h3`
  font-size: ${({ theme }) => theme.fontSizes.lg};
  overflow-wrap: anywhere;
`;

const Description = styled.p<{ $empty: boolean }>`
  flex: 1;
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-style: ${({ $empty }) => ($empty ? 'italic' : 'normal')};
  display: -webkit-box;
  -webkit-line-clamp: 3;
  -webkit-box-orient: vertical;
  overflow: hidden;
  overflow-wrap: anywhere;
`;

const Dates = styled.div`
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(2)};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;
