import { useState, type FormEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import type { EnvironmentConfig } from '../../../../shared/api/planning';
import type { Branch, Repository } from '../../../../shared/api/repositories';
import { ENVIRONMENT_DIALOG, REPOSITORY_PICKER } from '../../../../shared/constants';
import { Button } from '../../../common/components/Button';
import { Dialog, DialogActions } from '../../../common/components/Dialog';
import { FieldGroup, FieldHint, Label, TextArea, TextInput } from '../../../common/components/Field';
import { Spinner } from '../../../common/components/Spinner';
import { useGetBranchesQuery } from '../planningApi';
import { defaultBranch, toEnvironmentConfigs, type EnvironmentBlock } from '../planningRules';

export interface EnvironmentDialogProps {
  repository: Repository;
  onSubmit: (choice: { branch: string; environment_configs: EnvironmentConfig[] }) => void;
  onBack: () => void;
  onClose: () => void;
}

const FALLBACK_BRANCHES: Pick<Branch, 'name'>[] = [{ name: REPOSITORY_PICKER.fallbackBranch }];

/**
 * 'Environment Variables (Optional)' (part 1 sections 2 and 5): the branch to analyse (main, then
 * master, then the first; a failed branch fetch offers main alone) and one or more environment blocks
 * (description and content), whose contents the server treats as secrets. Remove is hidden while one
 * block remains; the blocks are cleaned and renamed by `toEnvironmentConfigs` on submit.
 */
export function EnvironmentDialog({ repository, onSubmit, onBack, onClose }: EnvironmentDialogProps): ReactElement {
  const branchesQuery = useGetBranchesQuery(repository.full_name);
  const branches = branchesQuery.isError ? FALLBACK_BRANCHES : (branchesQuery.data?.branches ?? []);
  // Until the person picks one, the branch is the default of those loaded.
  const [pickedBranch, setBranch] = useState('');
  const branch = pickedBranch || defaultBranch(branches) || '';
  const [blocks, setBlocks] = useState<EnvironmentBlock[]>([{ description: '', content: '' }]);

  const update = (index: number, change: Partial<EnvironmentBlock>): void =>
    setBlocks((current) => current.map((block, i) => (i === index ? { ...block, ...change } : block)));

  const onFormSubmit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (!branch) return;
    onSubmit({ branch, environment_configs: toEnvironmentConfigs(blocks) });
  };

  return (
    <Dialog title={ENVIRONMENT_DIALOG.title} onClose={onClose} width="640px" description={`Repository: ${repository.full_name}`}>
      <form onSubmit={onFormSubmit}>
        <FieldGroup>
          <Label htmlFor="analysis-branch">Branch</Label>
          {branchesQuery.isLoading ? (
            <Spinner label="Loading branches..." />
          ) : (
            <Select id="analysis-branch" value={branch} onChange={(event) => setBranch(event.target.value)}>
              {branches.map((option) => (
                <option key={option.name} value={option.name}>
                  {option.name}
                </option>
              ))}
            </Select>
          )}
        </FieldGroup>
        <Blocks>
          {blocks.map((block, index) => (
            <Block key={index} aria-label={`Environment ${index + 1}`}>
              <FieldGroup>
                <Label htmlFor={`env-description-${index}`}>Description</Label>
                <TextInput
                  id={`env-description-${index}`}
                  value={block.description}
                  maxLength={1_000}
                  placeholder={ENVIRONMENT_DIALOG.defaultDescription(index + 1)}
                  onChange={(event) => update(index, { description: event.target.value })}
                />
              </FieldGroup>
              <FieldGroup>
                <Label htmlFor={`env-content-${index}`}>Content</Label>
                <TextArea
                  id={`env-content-${index}`}
                  value={block.content}
                  maxLength={65_536}
                  spellCheck={false}
                  placeholder={'DATABASE_URL=postgres://...\nREDIS_URL=redis://...'}
                  onChange={(event) => update(index, { content: event.target.value })}
                />
                <FieldHint>Values are stored encrypted and never shown again.</FieldHint>
              </FieldGroup>
              {blocks.length > 1 && (
                <Button $variant="ghost" $size="sm" onClick={() => setBlocks((current) => current.filter((_, i) => i !== index))}>
                  Remove
                </Button>
              )}
            </Block>
          ))}
        </Blocks>
        {blocks.length < ENVIRONMENT_DIALOG.maxBlocks && (
          <Button $size="sm" onClick={() => setBlocks((current) => [...current, { description: '', content: '' }])}>
            Add environment
          </Button>
        )}
        <DialogActions>
          <Button onClick={onBack}>Back</Button>
          <Button type="submit" $variant="primary" disabled={!branch}>
            Analyse Repository
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

const Select = styled.select`
  width: 100%;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.background};
  color: ${({ theme }) => theme.colors.text};
`;

const Blocks = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
  margin-bottom: ${({ theme }) => theme.space(3)};
`;

const Block = styled.fieldset`
  margin: 0;
  padding: ${({ theme }) => theme.space(3)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
`;
