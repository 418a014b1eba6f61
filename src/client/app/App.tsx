import type { ReactElement, ReactNode } from 'react';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { ThemeProvider } from 'styled-components';
import { GlobalStyle } from '../common/GlobalStyle';
import { theme } from '../common/theme';
import type { createAppRouter } from './router';
import type { AppStore } from './store';

/** Store, theme and global styles: everything a screen needs except the router. */
export function AppProviders({ store, children }: { store: AppStore; children: ReactNode }): ReactElement {
  return (
    <Provider store={store}>
      <ThemeProvider theme={theme}>
        <GlobalStyle />
        {children}
      </ThemeProvider>
    </Provider>
  );
}

export function App({ store, router }: { store: AppStore; router: ReturnType<typeof createAppRouter> }): ReactElement {
  return (
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
