import { useId, useState, type FormEvent, type ReactElement } from 'react';
import type { Project } from '../../../../shared/api/projects';
import { CREATE_PROJECT, INPUT_LIMITS } from '../../../../shared/constants';

const { projectNameMax: PROJECT_NAME_MAX, projectDescriptionMax: PROJECT_DESCRIPTION_MAX } = INPUT_LIMITS;
import { errorMessage } from '../../../api/apiSlice';
import { Button } from '../../../common/components/Button';
import { Dialog, DialogActions } from '../../../common/components/Dialog';
import { ErrorText, FieldGroup, FieldHint, Label, TextArea, TextInput } from '../../../common/components/Field';
import { useCreateProjectMutation } from '../../../common/projects/projectsApi';

interface FieldErrors {
  name?: string;
  description?: string;
}

/** Part 1 section 5, and the server's limits: a trimmed name of 1–100 characters, a description ≤ 2000. */
export function validateProject(name: string, description: string): FieldErrors {
  const errors: FieldErrors = {};
  const trimmed = name.trim();
  if (!trimmed) errors.name = CREATE_PROJECT.nameRequired;
  else if (trimmed.length > PROJECT_NAME_MAX) errors.name = CREATE_PROJECT.nameTooLong(PROJECT_NAME_MAX);
  if (description.trim().length > PROJECT_DESCRIPTION_MAX) {
    errors.description = CREATE_PROJECT.descriptionTooLong(PROJECT_DESCRIPTION_MAX);
  }
  return errors;
}

export interface CreateProjectDialogProps {
  onClose: () => void;
  onCreated: (project: Project) => void;
}

/** The create-project dialog: required name, optional description, server errors shown in place. */
export function CreateProjectDialog({ onClose, onCreated }: CreateProjectDialogProps): ReactElement {
  const nameId = useId();
  const descriptionId = useId();
  const nameErrorId = useId();
  const descriptionErrorId = useId();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [createProject, { isLoading, error }] = useCreateProjectMutation();

  const onSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (isLoading) return;
    const found = validateProject(name, description);
    setErrors(found);
    if (found.name || found.description) return;
    const trimmedDescription = description.trim();
    const result = await createProject({ name: name.trim(), description: trimmedDescription || null });
    if ('data' in result && result.data) onCreated(result.data);
  };

  return (
    <Dialog title={CREATE_PROJECT.title} onClose={onClose}>
      <form onSubmit={onSubmit} noValidate>
        <FieldGroup>
          <Label htmlFor={nameId}>{CREATE_PROJECT.nameLabel}</Label>
          <TextInput
            id={nameId}
            name="name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? nameErrorId : undefined}
            disabled={isLoading}
            autoComplete="off"
            data-autofocus
          />
          {errors.name && <ErrorText id={nameErrorId}>{errors.name}</ErrorText>}
        </FieldGroup>
        <FieldGroup>
          <Label htmlFor={descriptionId}>{CREATE_PROJECT.descriptionLabel}</Label>
          <TextArea
            id={descriptionId}
            name="description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            aria-invalid={errors.description ? true : undefined}
            aria-describedby={errors.description ? descriptionErrorId : undefined}
            disabled={isLoading}
            rows={4}
          />
          <FieldHint>
            {description.trim().length} / {PROJECT_DESCRIPTION_MAX}
          </FieldHint>
          {errors.description && <ErrorText id={descriptionErrorId}>{errors.description}</ErrorText>}
        </FieldGroup>
        {error && <ErrorText>{errorMessage(error)}</ErrorText>}
        <DialogActions>
          <Button onClick={onClose}>{CREATE_PROJECT.cancel}</Button>
          <Button type="submit" $variant="primary" disabled={isLoading}>
            {isLoading ? CREATE_PROJECT.submitting : CREATE_PROJECT.submit}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
