import type { LocalLoginBody, LocalLoginResponse, UserProfile } from '../../../shared/api/auth';
import { apiSlice } from '../../api/apiSlice';

/** Sign-in and the profile (part 1 section 7, "Account and credits"; ARCHITECTURE.md, sign-in). */
export const authApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getUser: build.query<UserProfile, void>({
      query: () => '/github/user',
      providesTags: ['User'],
    }),
    localLogin: build.mutation<LocalLoginResponse, LocalLoginBody>({
      query: (body) => ({ url: '/github/local-login', method: 'POST', body }),
    }),
    logout: build.mutation<null, void>({
      query: () => ({ url: '/github/logout', method: 'POST' }),
    }),
  }),
});

export const { useGetUserQuery, useLocalLoginMutation, useLogoutMutation } = authApi;
