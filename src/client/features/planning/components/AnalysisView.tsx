import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { RepositoryAnalysis } from '../../../../shared/api/planning';
import { LazyMarkdown } from '../../../common/chat/markdown/LazyMarkdown';

function show(value: unknown): string {
  if (Array.isArray(value)) return value.map(show).join(', ');
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function List({ title, items }: { title: string; items: readonly string[] }): ReactElement | null {
  if (items.length === 0) return null;
  return (
    <Section>
      <h4>{title}</h4>
      <ul>
        {items.map((item, index) => (
          <li key={index}>{item}</li>
        ))}
      </ul>
    </Section>
  );
}

/** 'Repository Analysis' (part 1 section 3): the repository, its stack, environment, questions, plan and text. */
export function AnalysisView({ analysis }: { analysis: RepositoryAnalysis }): ReactElement {
  const { repository, repo_analysis, environment, user_questions, deployment_plan } = analysis;
  const stack = Object.entries(repo_analysis.technology_stack);
  const questions = Object.entries(user_questions.questions);
  return (
    <Wrapper>
      <Section>
        <h3>{repository.full_name}</h3>
        {repository.description && <Muted>{repository.description}</Muted>}
        <Facts>
          <span>{repository.private ? 'Private' : 'Public'}</span>
          {repository.language && <span>{repository.language}</span>}
          <span>Default branch: {repository.default_branch}</span>
        </Facts>
      </Section>
      {stack.length > 0 && (
        <Section>
          <h4>Technology stack</h4>
          <dl>
            {stack.map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{show(value)}</dd>
              </div>
            ))}
          </dl>
        </Section>
      )}
      {environment.env_content_summary && (
        <Section>
          <h4>Environment</h4>
          <p>{environment.env_content_summary}</p>
        </Section>
      )}
      {questions.length > 0 && (
        <Section>
          <h4>Questions</h4>
          {user_questions.reason && <Muted>{user_questions.reason}</Muted>}
          <dl>
            {questions.map(([question, answer]) => (
              <div key={question}>
                <dt>{question}</dt>
                <dd>{answer || <em>Not answered yet</em>}</dd>
              </div>
            ))}
          </dl>
        </Section>
      )}
      <List title="Prerequisites" items={deployment_plan.prerequisites} />
      <List title="Deployment steps" items={deployment_plan.deployment_steps} />
      <List title="After deployment" items={deployment_plan.post_deployment} />
      <List title="Scaling considerations" items={deployment_plan.scaling_considerations} />
      {analysis.analysis && (
        <Section>
          <h4>Analysis</h4>
          <LazyMarkdown>{analysis.analysis}</LazyMarkdown>
        </Section>
      )}
    </Wrapper>
  );
}

const Wrapper = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
`;

const Section = styled.section`
  h3 { font-size: ${({ theme }) => theme.fontSizes.lg}; overflow-wrap: anywhere; }
  h4 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(2)}; }
  p { margin: 0; }
  ul { margin: 0; padding-left: ${({ theme }) => theme.space(5)}; }
  dl { margin: 0; display: flex; flex-direction: column; gap: ${({ theme }) => theme.space(2)}; }
  dt { font-weight: 600; font-size: ${({ theme }) => theme.fontSizes.sm}; }
  dd { margin: 0; overflow-wrap: anywhere; }
`;

const Muted = styled.p`
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Facts = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(3)};
  margin-top: ${({ theme }) => theme.space(2)};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
