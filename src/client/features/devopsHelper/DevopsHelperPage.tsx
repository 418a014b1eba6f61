import type { ReactElement } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { DEVOPS_HELPER, DEVOPS_HELPER_ASK_PARAM } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { DevopsHelperPanel } from './DevopsHelperPanel';

/** /app/{projectId}/home/devops-helper: the DevOps Helper full page. */
export function DevopsHelperPage(): ReactElement {
  useDocumentTitle(DEVOPS_HELPER.title);
  const { projectId = '' } = useParams();
  const navigate = useNavigate();
  // `?ask=`: a question another screen prepared (a failed check, with its failure), put in the input unsent.
  const [params] = useSearchParams();
  const ask = params.get(DEVOPS_HELPER_ASK_PARAM)?.slice(0, 4_000);
  const home = `/app/${projectId}/home`;
  return (
    <Page>
      <Bar>
        <Button $variant="ghost" onClick={() => navigate(home)}>
          {DEVOPS_HELPER.backToHome}
        </Button>
      </Bar>
      <DevopsHelperPanel projectId={Number(projectId)} onDecline={() => navigate(home)} headingLevel="h1" {...(ask ? { initialDraft: ask } : {})} />
    </Page>
  );
}

const Page = styled.main`
  max-width: 960px;
  margin: 0 auto;
  padding: ${({ theme }) => theme.space(6)} ${({ theme }) => theme.space(4)};
`;

const Bar = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  margin-bottom: ${({ theme }) => theme.space(3)};
`;
