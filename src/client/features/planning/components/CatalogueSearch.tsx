import { useId, useMemo, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import type { CatalogueProduct } from '../../../../shared/api/stack';
import { Button } from '../../../common/components/Button';
import { Label, TextInput } from '../../../common/components/Field';

/** Results shown at once: enough to pick from, short enough to read. */
const SHOWN = 8;

/** Catalogue products whose name, id or category holds every word typed, in that category when one is chosen. */
export function searchCatalogue(catalogue: readonly CatalogueProduct[], query: string, category: string): CatalogueProduct[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return catalogue.filter(
    (item) =>
      (!category || item.category === category) &&
      words.every((w) => `${item.label} ${item.id} ${item.category}`.toLowerCase().includes(w)),
  );
}

/** 'Add from the catalogue': search by name, narrow by category, add with one press. */
export function CatalogueSearch({
  catalogue,
  present,
  disabled,
  onAdd,
}: {
  catalogue: readonly CatalogueProduct[];
  /** Catalogue ids already in the stack: offered, but marked. */
  present: ReadonlySet<string>;
  disabled: boolean;
  onAdd: (item: CatalogueProduct) => void;
}): ReactElement {
  const id = useId();
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState('');
  const categories = useMemo(() => [...new Set(catalogue.map((c) => c.category))].sort(), [catalogue]);
  const found = searchCatalogue(catalogue, query, category);
  const searching = query.trim() !== '' || category !== '';

  return (
    <div role="search" aria-label="Add from the catalogue">
      <Filters>
        <div>
          <Label htmlFor={`${id}-q`}>Add from the catalogue</Label>
          <TextInput id={`${id}-q`} type="search" value={query} placeholder="Search by name, e.g. redis" onChange={(e) => setQuery(e.target.value)} />
        </div>
        <div>
          <Label htmlFor={`${id}-c`}>Category</Label>
          <Select id={`${id}-c`} value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="">All</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </Select>
        </div>
      </Filters>
      {searching && (
        <Results aria-label="Catalogue results">
          {found.slice(0, SHOWN).map((item) => (
            <li key={item.id}>
              <span>
                {item.label} <Muted>{item.category}</Muted>
              </span>
              {present.has(item.id) ? (
                <Muted>in the stack</Muted>
              ) : (
                <Button $size="sm" disabled={disabled} onClick={() => onAdd(item)} aria-label={`Add ${item.label}`}>
                  Add
                </Button>
              )}
            </li>
          ))}
          {found.length === 0 && <li>Nothing in the catalogue matches; describe it in the chat (an image, its port) instead.</li>}
          {found.length > SHOWN && <li>{found.length - SHOWN} more: type more of the name.</li>}
        </Results>
      )}
    </div>
  );
}

const Filters = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 2fr) minmax(0, 1fr);
  gap: ${({ theme }) => theme.space(2)};
`;

const Select = styled.select`
  width: 100%;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(2)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.background};
  color: ${({ theme }) => theme.colors.text};
  &:focus { outline: 2px solid ${({ theme }) => theme.colors.focus}; outline-offset: 0; }
`;

const Results = styled.ul`
  list-style: none;
  margin: ${({ theme }) => theme.space(2)} 0 0;
  padding: 0;
  & > li {
    display: flex;
    justify-content: space-between;
    align-items: center;
    gap: ${({ theme }) => theme.space(2)};
    padding: ${({ theme }) => theme.space(1)} 0;
    font-size: ${({ theme }) => theme.fontSizes.sm};
  }
`;

export const Muted = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;
