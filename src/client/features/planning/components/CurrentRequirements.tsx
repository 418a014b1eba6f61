import type { ReactElement } from 'react';
import styled from 'styled-components';
import { REQUIREMENTS_DOCUMENT, REQUIREMENTS_TEXT } from '../../../../shared/constants';
import { parseRequirementsDocument } from '../../../../shared/requirementsDocument';
import { formatDateTime } from '../../../common/format';

const BULLET = /^\s*[-*•]\s+/;

/**
 * A section's text as a person reads it: runs of '- ' lines become a list, other lines paragraphs
 * (the document is plain text written for the agents; its markers are not for people).
 */
export function SectionText({ text }: { text: string }): ReactElement {
  const blocks: ReactElement[] = [];
  let items: string[] = [];
  const flush = (): void => {
    if (items.length === 0) return;
    blocks.push(
      <Bullets key={`list-${blocks.length}`}>
        {items.map((item, index) => (
          <li key={index}>{item}</li>
        ))}
      </Bullets>,
    );
    items = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (BULLET.test(line)) {
      items.push(line.replace(BULLET, ''));
      continue;
    }
    flush();
    if (line.trim()) blocks.push(<p key={`p-${blocks.length}`}>{line.trim()}</p>);
  }
  flush();
  return <>{blocks}</>;
}

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
            {parsed.sections[section] ? (
              <Value>
                <SectionText text={parsed.sections[section]} />
              </Value>
            ) : <Pending>Not collected yet</Pending>}
          </Row>
        ),
      )}
      {parsed.generatedOn && (
        <Row>
          <dt>{REQUIREMENTS_DOCUMENT.generatedOnPrefix}</dt>
          <dd>
            <time dateTime={parsed.generatedOn}>{formatDateTime(parsed.generatedOn)}</time>
          </dd>
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
  overflow-wrap: anywhere;
  p { margin: 0; }
  p + p, p + ul, ul + p { margin-top: ${({ theme }) => theme.space(1)}; }
`;

const Bullets = styled.ul`
  margin: 0;
  padding-left: ${({ theme }) => theme.space(5)};
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
