import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { StrictMode } from 'react';
import { makeStore } from '../../../src/client/app/store';
import { UserProfile } from '../../../src/client/common/auth/UserProfile';
import { INSTALLATION_ID_KEY, PROFILE } from '../../../src/shared/constants';
import { assignMock } from '../utils/browser';
import { renderWithProviders } from '../utils/renderWithProviders';
import { api, server } from '../utils/server';

describe('app-only features load with their chunks', () => {
  it("the entry's store holds only RTK Query's cache; a slice joins when its module loads", async () => {
    // A module registry of its own: the other imports of this file have loaded every feature already.
    await jest.isolateModulesAsync(async () => {
      const { makeStore: makeEntryStore } = await import('../../../src/client/app/store');
      const store = makeEntryStore();
      expect(Object.keys(store.getState())).toEqual(['api']);

      const { chatKey, selectChatThread, turnStarted } = await import('../../../src/client/common/chat/chatSlice');
      const key = chatKey(7, 'requirements');
      expect(selectChatThread(store.getState(), key).messages).toEqual([]);
      store.dispatch(turnStarted({ key, userMessage: 'hello' }));
      expect(Object.keys(store.getState())).toEqual(['api', 'chat']);
      expect(selectChatThread(store.getState(), key).messages[0]).toMatchObject({ role: 'user', content: 'hello' });
    });
  });

  it('a screen starts its saga on a bare store, once under StrictMode', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    const logout = jest.fn();
    server.use(
      http.post(api('/github/logout'), () => {
        logout();
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { user } = renderWithProviders(
      <StrictMode>
        <UserProfile />
      </StrictMode>,
      { store: makeStore() },
    );
    await user.click(await screen.findByRole('button', { name: /Alice Liddell/ }));
    await user.click(screen.getByRole('menuitem', { name: PROFILE.signOut }));
    await waitFor(() => expect(assignMock()).toHaveBeenCalledWith('/'), { timeout: 3000 });
    expect(logout).toHaveBeenCalledTimes(1);
    expect(assignMock()).toHaveBeenCalledTimes(1);
  });
});
