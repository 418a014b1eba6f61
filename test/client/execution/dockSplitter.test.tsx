import { screen } from '@testing-library/react';
import { ExecutionStage } from '../../../src/client/features/execution/ExecutionStage';
import { INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { makeProject, makeStages } from '../utils/factories';
import { renderWithProviders } from '../utils/renderWithProviders';
import { makeProgress, makeStep, useFakeExecution } from './executionFixtures';

const PROJECT = 7;
const KEY = 'da.executionChat.dockHeight';

async function openDockedChat(): Promise<ReturnType<typeof renderWithProviders>> {
  const rendered = renderWithProviders(<ExecutionStage projectId={PROJECT} project={makeProject({ id: PROJECT })} stage={makeStages()[3]} stages={makeStages()} />, { route: `/app/${PROJECT}` });
  await rendered.user.click(await screen.findByRole('button', { name: /Open the agent chat/ }));
  return rendered;
}

beforeEach(() => {
  useFakeExecution(makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval' })]));
  sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
  localStorage.removeItem(KEY);
});

describe('the docked agent chat (below 1600 px)', () => {
  it('is resized with the keyboard through a separator that states its height, within the window, and remembers it', async () => {
    const { user, unmount } = await openDockedChat();
    const splitter = screen.getByRole('separator', { name: 'Resize the agent chat' });
    const max = Math.floor(window.innerHeight * 0.7);
    expect(splitter).toHaveAttribute('aria-orientation', 'horizontal');
    expect(splitter).toHaveAttribute('aria-valuemin', '160');
    expect(splitter).toHaveAttribute('aria-valuemax', String(max));
    const start = Number(splitter.getAttribute('aria-valuenow'));
    expect(start).toBe(Math.round(Math.min(window.innerHeight / 2, 520)));
    splitter.focus();
    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(splitter).toHaveAttribute('aria-valuenow', String(start + 48));
    expect(document.getElementById('execution-agent-chat')).toHaveStyle({ height: `${start + 48}px` });
    // Never past the bounds: the rest of the window keeps the step that waits.
    await user.keyboard('{End}');
    expect(splitter).toHaveAttribute('aria-valuenow', String(max));
    await user.keyboard('{PageDown}');
    expect(splitter).toHaveAttribute('aria-valuenow', String(max - 120));
    expect(localStorage.getItem(KEY)).toBe(String(max - 120));
    unmount();

    await openDockedChat();
    expect(screen.getByRole('separator', { name: 'Resize the agent chat' })).toHaveAttribute('aria-valuenow', String(max - 120));
  });

  it('a remembered height larger than this window allows is held to its bound', async () => {
    localStorage.setItem(KEY, '99999');
    await openDockedChat();
    expect(screen.getByRole('separator', { name: 'Resize the agent chat' })).toHaveAttribute('aria-valuenow', String(Math.floor(window.innerHeight * 0.7)));
  });
});
