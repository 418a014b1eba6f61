import { useId, useRef, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { HOME } from '../../../../shared/constants';
import { errorMessage } from '../../../api/apiSlice';
import { Button } from '../../../common/components/Button';
import { ErrorText } from '../../../common/components/Field';
import { MutedText } from '../../../common/components/Layout';
import { Spinner } from '../../../common/components/Spinner';
import { filterProjects } from '../filterProjects';
import { useGetProjectsQuery } from '../../../common/projects/projectsApi';
import { ProjectCard } from './ProjectCard';

/**
 * 'My Projects': the search box, the cards (6 first, then 'See all {n} projects' / 'Show less'; a
 * search shows every match), and the loading, empty and error states.
 */
export function ProjectList(): ReactElement {
  const { data: projects = [], isLoading, error } = useGetProjectsQuery(undefined, { refetchOnMountOrArgChange: true });
  const [query, setQuery] = useState('');
  const [expanded, setExpanded] = useState(false);
  const searchId = useId();
  const searchRef = useRef<HTMLInputElement>(null);

  const searching = query.trim() !== '';
  const matches = filterProjects(projects, query);
  const visible = searching || expanded ? matches : matches.slice(0, HOME.initialProjectCount);
  const canToggle = !searching && projects.length > HOME.initialProjectCount;

  let content: ReactElement;
  if (isLoading) {
    content = <Spinner label="Loading projects..." />;
  } else if (error) {
    content = <ErrorText>{errorMessage(error)}</ErrorText>;
  } else if (projects.length === 0) {
    content = <MutedText>No projects yet. Create your first project to get started.</MutedText>;
  } else if (matches.length === 0) {
    content = <MutedText>No projects match “{query.trim()}”.</MutedText>;
  } else {
    content = (
      <>
        <Grid aria-label="Projects">
          {visible.map((project) => (
            <li key={project.id}>
              <ProjectCard project={project} />
            </li>
          ))}
        </Grid>
        {canToggle && (
          <Toggle>
            <Button $variant="ghost" aria-expanded={expanded} onClick={() => setExpanded((value) => !value)}>
              {expanded ? HOME.showLess : HOME.seeAll(projects.length)}
            </Button>
          </Toggle>
        )}
      </>
    );
  }

  return (
    <section aria-labelledby="my-projects-title">
      <Header>
        <h1 id="my-projects-title">{HOME.title}</h1>
        <Search role="search">
          <label htmlFor={searchId} className="visually-hidden">
            Search projects
          </label>
          <SearchInput
            ref={searchRef}
            id={searchId}
            type="search"
            placeholder={HOME.searchPlaceholder}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && query) {
                event.preventDefault();
                setQuery('');
              }
            }}
          />
          {query && (
            <ClearButton
              type="button"
              aria-label="Clear search"
              onClick={() => {
                setQuery('');
                // The button goes away with the text: focus stays in the search, not lost to the page.
                searchRef.current?.focus();
              }}
            >
              ×
            </ClearButton>
          )}
        </Search>
      </Header>
      {content}
    </section>
  );
}

const Header = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(4)};
  margin-bottom: ${({ theme }) => theme.space(6)};
  h1 { font-size: ${({ theme }) => theme.fontSizes.xxl}; }
`;

const Search = styled.div`
  position: relative;
  width: min(360px, 100%);
`;

const SearchInput = styled.input`
  width: 100%;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(9)} ${theme.space(2)} ${theme.space(3)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
  &::placeholder { color: ${({ theme }) => theme.colors.textMuted}; }
  /* The border alone (1 px) is too faint a cue: the outline every other control has, flush with it. */
  &:focus { border-color: ${({ theme }) => theme.colors.focus}; outline: 2px solid ${({ theme }) => theme.colors.focus}; outline-offset: 0; }
  &::-webkit-search-cancel-button { display: none; }
`;

const ClearButton = styled.button`
  position: absolute;
  right: ${({ theme }) => theme.space(1)};
  top: 50%;
  transform: translateY(-50%);
  width: 28px;
  height: 28px;
  border: none;
  border-radius: ${({ theme }) => theme.radii.sm};
  background: transparent;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: 18px;
  cursor: pointer;
  &:hover { color: ${({ theme }) => theme.colors.text}; }
`;

const Grid = styled.ul`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(260px, 1fr));
  gap: ${({ theme }) => theme.space(4)};
  margin: 0;
  padding: 0;
  list-style: none;
`;

const Toggle = styled.div`
  display: flex;
  justify-content: center;
  margin-top: ${({ theme }) => theme.space(4)};
`;
