import type { ActivityGridResponse, ActivityStatsResponse, ActivityTimelineResponse } from '../../../shared/api/activity';
import { apiSlice } from '../../api/apiSlice';

/** The signed-in user's activity (part 2 section 7). */
export const activityApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getActivityGrid: build.query<ActivityGridResponse, number>({
      query: (year) => `/users/current/activity/grid?year=${year}`,
    }),
    getActivityTimeline: build.query<ActivityTimelineResponse, { limit: number; offset: number }>({
      query: ({ limit, offset }) => `/users/current/activity/timeline?limit=${limit}&offset=${offset}`,
    }),
    getActivityStats: build.query<ActivityStatsResponse, void>({
      query: () => '/users/current/activity/stats',
    }),
  }),
});

export const { useGetActivityGridQuery, useGetActivityTimelineQuery, useGetActivityStatsQuery } = activityApi;
