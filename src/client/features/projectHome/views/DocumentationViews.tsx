import { useCallback, type ReactElement, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import type { DocumentationResponse } from '../../../../shared/api/documentation';
import {
  DOCUMENTATION_ERRORS,
  DOCUMENTATION_TEXT,
  isDocumentationMissing,
  isQuickstartMissing,
  PROJECT_HOME_NAV,
} from '../../../../shared/constants/documentation';
import { ENVIRONMENT_GUIDE, PROJECT_HOME_TEXT } from '../../../../shared/constants/environmentGuide';
import { Button } from '../../../common/components/Button';
import { Card } from '../../../common/components/Card';
import { ErrorText } from '../../../common/components/Field';
import { MutedText } from '../../../common/components/Layout';
import { Spinner } from '../../../common/components/Spinner';
import { LazyMarkdown } from '../../../common/chat/markdown/LazyMarkdown';
import { useRegenerateDocumentation } from '../useRegenerateDocumentation';

/** What the documentation views receive: the GET /documentation/current query's state. */
export interface DocumentationState {
  data: DocumentationResponse | undefined;
  isLoading: boolean;
  error: unknown;
  /** Reads the documents again (after a regeneration). */
  refetch?: () => void;
}

function View({ title, children }: { title: string; children: ReactNode }): ReactElement {
  return (
    <ViewCard aria-labelledby="project-home-view-title">
      <h2 id="project-home-view-title">{title}</h2>
      {children}
    </ViewCard>
  );
}

/** Loading, error and 'generating' states shared by the two generated documents. */
function DocumentBody(props: { docs: DocumentationState; text: string | undefined; missing: boolean; empty: string }): ReactElement {
  const { docs } = props;
  if (docs.isLoading) return <Spinner label={PROJECT_HOME_TEXT.loadingDocumentation} />;
  if (docs.error && !docs.data) return <ErrorText>{DOCUMENTATION_ERRORS.load}</ErrorText>;
  if (props.missing) {
    return (
      <>
        {docs.data?.status === 'generating' && <Spinner label={PROJECT_HOME_TEXT.generatingDocumentation} />}
        <MutedText>{props.empty}</MutedText>
      </>
    );
  }
  return (
    <>
      {docs.data?.out_of_date && <OutOfDate refetch={docs.refetch} />}
      <LazyMarkdown>{props.text ?? ''}</LazyMarkdown>
    </>
  );
}

/** Documents written before validation results that differ (the server says so in them): write them anew. */
function OutOfDate({ refetch }: { refetch: (() => void) | undefined }): ReactElement {
  const done = useCallback(() => refetch?.(), [refetch]);
  const regeneration = useRegenerateDocumentation(done);
  return (
    <Note role="status" aria-label={PROJECT_HOME_TEXT.outOfDate}>
      <strong>{PROJECT_HOME_TEXT.outOfDate}</strong>
      <div>
        <Button $size="sm" onClick={regeneration.start} disabled={regeneration.running}>
          {regeneration.running ? PROJECT_HOME_TEXT.regenerating : PROJECT_HOME_TEXT.regenerate}
        </Button>
      </div>
      {regeneration.error && <ErrorText>{regeneration.error}</ErrorText>}
    </Note>
  );
}

/** The quick start, under a 'Before You Begin' note that leads to the Environment Guide. */
export function QuickStartView({ docs, projectId }: { docs: DocumentationState; projectId: number }): ReactElement {
  const text = docs.data?.quickstart;
  return (
    <View title={PROJECT_HOME_NAV.quickStart}>
      <Note role="note" aria-labelledby="before-you-begin">
        <strong id="before-you-begin">{DOCUMENTATION_TEXT.beforeYouBegin}</strong>
        <p>{PROJECT_HOME_TEXT.beforeYouBeginNote}</p>
        <Link to={`/app/${projectId}/home/environment`}>{PROJECT_HOME_TEXT.readEnvironmentGuide}</Link>
      </Note>
      <DocumentBody docs={docs} text={text} missing={isQuickstartMissing(text)} empty={DOCUMENTATION_TEXT.noQuickstart} />
    </View>
  );
}

export function FullDocumentationView({ docs }: { docs: DocumentationState }): ReactElement {
  const text = docs.data?.documentation;
  return (
    <View title={PROJECT_HOME_NAV.fullDocumentation}>
      <DocumentBody docs={docs} text={text} missing={isDocumentationMissing(text)} empty={DOCUMENTATION_TEXT.noDocumentation} />
    </View>
  );
}

/** The static Environment Guide (src/shared/constants/environmentGuide.ts). */
export function EnvironmentGuideView(): ReactElement {
  return (
    <View title={ENVIRONMENT_GUIDE.title}>
      <MutedText>{ENVIRONMENT_GUIDE.intro}</MutedText>
      {ENVIRONMENT_GUIDE.sections.map((section) => (
        <Section key={section.id} aria-labelledby={`guide-${section.id}`}>
          <h3 id={`guide-${section.id}`}>{section.title}</h3>
          {section.paragraphs.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
          {'items' in section && section.items && (
            <ul>
              {section.items.map((item) => (
                <li key={item.text}>
                  {'term' in item && item.term && <code>{item.term}</code>} {item.text}
                </li>
              ))}
            </ul>
          )}
        </Section>
      ))}
    </View>
  );
}

/** A value as text: strings as they are, anything else (objects above all) as formatted JSON. */
export function configValueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2) ?? String(value);
}

export function ConfigurationDataView({ docs }: { docs: DocumentationState }): ReactElement {
  const entries = Object.entries(docs.data?.key_value_data ?? {});
  let body: ReactNode;
  if (docs.isLoading) body = <Spinner label={PROJECT_HOME_TEXT.loadingDocumentation} />;
  else if (docs.error && !docs.data) body = <ErrorText>{DOCUMENTATION_ERRORS.load}</ErrorText>;
  else if (entries.length === 0) body = <MutedText>{DOCUMENTATION_TEXT.noConfigurationData}</MutedText>;
  else {
    body = (
      <Table aria-labelledby="project-home-view-title">
        <thead>
          <tr>
            <th scope="col">{DOCUMENTATION_TEXT.keyColumn}</th>
            <th scope="col">{DOCUMENTATION_TEXT.valueColumn}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([key, value]) => (
            <tr key={key}>
              <th scope="row">{key}</th>
              <td>
                {typeof value === 'object' && value !== null ? <pre>{configValueText(value)}</pre> : configValueText(value)}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    );
  }
  return <View title={DOCUMENTATION_TEXT.rawConfigurationData}>{body}</View>;
}

const ViewCard = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
  h2 { font-size: ${({ theme }) => theme.fontSizes.xl}; margin: 0; }
`;

const Note = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1.5)};
  padding: ${({ theme }) => theme.space(4)};
  border-left: 3px solid ${({ theme }) => theme.colors.primary};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  p { margin: 0; color: ${({ theme }) => theme.colors.textMuted}; }
`;

const Section = styled.section`
  h3 { font-size: ${({ theme }) => theme.fontSizes.lg}; margin: 0 0 ${({ theme }) => theme.space(2)}; }
  p { margin: 0 0 ${({ theme }) => theme.space(2)}; line-height: 1.6; }
  ul { margin: 0; padding-left: ${({ theme }) => theme.space(5)}; line-height: 1.6; }
  code {
    font-family: ${({ theme }) => theme.fonts.mono};
    font-size: ${({ theme }) => theme.fontSizes.sm};
    padding: 1px ${({ theme }) => theme.space(1)};
    border-radius: ${({ theme }) => theme.radii.sm};
    background: ${({ theme }) => theme.colors.surfaceRaised};
  }
`;

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: ${({ theme }) => theme.fontSizes.sm};
  th, td {
    text-align: left;
    vertical-align: top;
    padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
  tbody th { font-family: ${({ theme }) => theme.fonts.mono}; font-weight: 600; }
  pre { margin: 0; font-family: ${({ theme }) => theme.fonts.mono}; white-space: pre-wrap; overflow-wrap: anywhere; }
`;
