import type { NotificationSettings, NotificationSettingsBody, NotificationTestResponse } from '../../../shared/api/notifications';
import { apiSlice } from '../../api/apiSlice';

/** A project's notification settings (GET/PUT) and a test send, which updates the deliveries shown. */
export const notificationsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getNotifications: build.query<NotificationSettings, number>({
      query: (projectId) => `/projects/${projectId}/notifications`,
      providesTags: (_result, _error, projectId) => [{ type: 'Notifications', id: projectId }],
    }),
    saveNotifications: build.mutation<NotificationSettings, { projectId: number; body: NotificationSettingsBody }>({
      query: ({ projectId, body }) => ({ url: `/projects/${projectId}/notifications`, method: 'PUT', body }),
      async onQueryStarted({ projectId }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled;
        dispatch(notificationsApi.util.upsertQueryData('getNotifications', projectId, data));
      },
    }),
    testNotifications: build.mutation<NotificationTestResponse, number>({
      query: (projectId) => ({ url: `/projects/${projectId}/notifications/test`, method: 'POST' }),
      invalidatesTags: (_result, _error, projectId) => [{ type: 'Notifications', id: projectId }],
    }),
  }),
});

export const { useGetNotificationsQuery, useSaveNotificationsMutation, useTestNotificationsMutation } = notificationsApi;
