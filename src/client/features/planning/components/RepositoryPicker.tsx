import { useEffect, useRef, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import type { Repository } from '../../../../shared/api/repositories';
import { REPOSITORY_ERRORS, REPOSITORY_PICKER } from '../../../../shared/constants';
import { errorMessage, errorStatus } from '../../../api/apiSlice';
import { Dialog } from '../../../common/components/Dialog';
import { ErrorText } from '../../../common/components/Field';
import { TextInput } from '../../../common/components/Field';
import { formatDate, markdownAsText } from '../../../common/format';
import { isSignedIn } from '../../../common/session';
import { Spinner } from '../../../common/components/Spinner';
import { useGetRepositoriesQuery } from '../planningApi';
import { filterRepositories, permissionRequiredText, repositoryFetchErrorText } from '../planningRules';

/**
 * 'Select a repository' (part 1 section 2): the installation's repositories, searched case-insensitively
 * on name, full name and description, each with its description, private flag, language, stars and
 * updated time; the error texts of part 1 section 8.
 */
export function RepositoryPicker({ onSelect, onClose }: { onSelect: (repository: Repository) => void; onClose: () => void }): ReactElement {
  const { data, error, isLoading } = useGetRepositoriesQuery();
  const [query, setQuery] = useState('');
  const repositories = data ? filterRepositories(data.repositories, query) : [];
  const searchRef = useRef<HTMLInputElement>(null);
  const listed = Boolean(data && !data.requires_permission_request && data.repositories.length > 0);
  // The dialog opens while the list loads (focus on its close button): the search takes focus once it is there.
  useEffect(() => {
    if (listed) searchRef.current?.focus();
  }, [listed]);

  let body: ReactElement;
  if (isLoading) {
    body = <Spinner label="Loading repositories..." />;
  } else if (error) {
    body = <ErrorText>{repositoryFetchErrorText({ signedIn: isSignedIn(), status: errorStatus(error), message: errorMessage(error) })}</ErrorText>;
  } else if (data?.requires_permission_request) {
    body = <ErrorText>{permissionRequiredText(data.message)}</ErrorText>;
  } else if (data && data.repositories.length === 0) {
    body = <Notice role="status">{data.message?.trim() || REPOSITORY_ERRORS.noRepositories}</Notice>;
  } else {
    body = (
      <>
        <TextInput
          type="search"
          aria-label={REPOSITORY_PICKER.searchPlaceholder}
          placeholder={REPOSITORY_PICKER.searchPlaceholder}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          ref={searchRef}
          data-autofocus
        />
        <List aria-label="Repositories">
          {repositories.map((repository) => (
            <li key={repository.id}>
              <Item type="button" onClick={() => onSelect(repository)}>
                <Name>
                  {repository.name}
                  <Flag>{repository.private ? 'Private' : 'Public'}</Flag>
                </Name>
                <FullName>{repository.full_name}</FullName>
                {repository.description && <Description>{markdownAsText(repository.description)}</Description>}
                <Facts>
                  {repository.language && <span>{repository.language}</span>}
                  <span aria-label={`${repository.stargazers_count} stars`}>★ {repository.stargazers_count}</span>
                  {repository.updated_at && <span>Updated {formatDate(repository.updated_at)}</span>}
                </Facts>
              </Item>
            </li>
          ))}
          {repositories.length === 0 && <Notice as="li">No repository matches "{query.trim()}".</Notice>}
        </List>
      </>
    );
  }

  return (
    <Dialog title={REPOSITORY_PICKER.title} onClose={onClose} width="640px">
      {body}
    </Dialog>
  );
}

const List = styled.ul`
  list-style: none;
  margin: ${({ theme }) => theme.space(3)} 0 0;
  padding: 0;
  max-height: 420px;
  overflow-y: auto;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
`;

const Item = styled.button`
  width: 100%;
  text-align: left;
  padding: ${({ theme }) => theme.space(3)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.text};
  cursor: pointer;
  &:hover, &:focus-visible { border-color: ${({ theme }) => theme.colors.focus}; }
`;

const Name = styled.span`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  font-weight: 600;
`;

const Flag = styled.span`
  padding: 0 ${({ theme }) => theme.space(2)};
  border-radius: ${({ theme }) => theme.radii.round};
  border: 1px solid ${({ theme }) => theme.colors.border};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  font-weight: 400;
`;

const FullName = styled.span`
  display: block;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Description = styled.span`
  display: block;
  margin-top: ${({ theme }) => theme.space(1)};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const Facts = styled.span`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(3)};
  margin-top: ${({ theme }) => theme.space(1.5)};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Notice = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;
