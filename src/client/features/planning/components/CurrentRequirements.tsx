import type { ReactElement } from 'react';
import styled from 'styled-components';
import { REQUIREMENTS_DOCUMENT, REQUIREMENTS_TEXT } from '../../../../shared/constants';
import { parseRequirementsDocument } from '../../../../shared/requirementsDocument';

/** The document up to 'User Secrets Configuration:' (part 1 section 3), for text that has no sections. */
function beforeStopLine(content: string): string {
  const lines = content.split(/\r?\n/);
  const stop = lines.findIndex((line) => line.trim().startsWith(REQUIREMENTS_DOCUMENT.stopLine));
  return (stop === -1 ? lines : lines.slice(0, stop)).join('\n').trim();
}

/**
 * 'Current Requirements': the sectioned document (Summary … Required User Details, the Cloud
 * Specifications fields, 'Generated on'), parsed up to 'User Secrets Configuration:'. With nothing
 * collected yet, the placeholder rows Stack Type, Container Services, Volume Configuration and
 * Network Configuration.
 */
export function CurrentRequirements({ content }: { content: string | undefined }): ReactElement {
  const text = content ? beforeStopLine(content) : '';
  if (!text) {
    return (
      <Rows aria-label="Requirements not collected yet">
        {REQUIREMENTS_TEXT.placeholderRows.map((row) => (
          <Row key={row}>
            <dt>{row}</dt>
            <Pending>Not collected yet</Pending>
          </Row>
        ))}
      </Rows>
    );
  }
  const parsed = parseRequirementsDocument(text);
  const sections = REQUIREMENTS_DOCUMENT.sections.filter((section) => parsed.sections[section] !== undefined);
  if (sections.length === 0) return <Raw>{text}</Raw>;
  return (
    <Rows aria-label="Collected requirements">
      {sections.map((section) =>
        section === 'Cloud Specifications' ? (
          <Row key={section}>
            <dt>{section}</dt>
            <dd>
              <CloudFields>
                {REQUIREMENTS_DOCUMENT.cloudSpecificationFields.map((field) => (
                  <li key={field}>
                    <strong>{field}:</strong> {parsed.cloud[field] || <Pending as="span">Not collected yet</Pending>}
                  </li>
                ))}
              </CloudFields>
            </dd>
          </Row>
        ) : (
          <Row key={section}>
            <dt>{section}</dt>
            {parsed.sections[section] ? <Value>{parsed.sections[section]}</Value> : <Pending>Not collected yet</Pending>}
          </Row>
        ),
      )}
      {parsed.generatedOn && (
        <Row>
          <dt>{REQUIREMENTS_DOCUMENT.generatedOnPrefix}</dt>
          <dd>{parsed.generatedOn}</dd>
        </Row>
      )}
    </Rows>
  );
}

const Rows = styled.dl`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
  margin: 0;
`;

const Row = styled.div`
  padding-bottom: ${({ theme }) => theme.space(3)};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  &:last-child { border-bottom: none; }
  dt {
    margin-bottom: ${({ theme }) => theme.space(1)};
    font-weight: 600;
    font-size: ${({ theme }) => theme.fontSizes.sm};
  }
  dd { margin: 0; }
`;

const Value = styled.dd`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

const Pending = styled.dd`
  color: ${({ theme }) => theme.colors.textMuted};
  font-style: italic;
`;

const CloudFields = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  li + li { margin-top: ${({ theme }) => theme.space(1)}; }
`;

const Raw = styled.div`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;
