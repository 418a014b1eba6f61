import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { Activity } from '../../../../src/shared/api/activity';
import { ACTIVITY, ACTIVITY_TEXT, HOME, INSTALLATION_ID_KEY, RECORDED_ACTIVITY_TYPES, relativeTime, truncateDetails } from '../../../../src/shared/constants';
import { ActivityHeatmap } from '../../../../src/client/features/activity/ActivityHeatmap';
import { activityTitle, ActivityTimeline } from '../../../../src/client/features/activity/ActivityTimeline';
import { buildHeatmap } from '../../../../src/client/features/activity/heatmap';
import { activityDb } from '../../utils/activityServer';
import { renderApp, renderWithProviders } from '../../utils/renderWithProviders';
import { api, server } from '../../utils/server';

const TODAY = new Date('2025-06-18T12:00:00Z'); // a Wednesday
const daysBefore = (n: number): string => new Date(Date.UTC(2025, 5, 18) - n * 86_400_000).toISOString().slice(0, 10);

let nextId = 1;
const activity = (type: string, data: Activity['activity_data'], createdAt: string): Activity => ({
  id: nextId++,
  activity_type: type,
  activity_data: data,
  created_at: createdAt,
});

beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

describe('activity heatmap', () => {
  it('lays out 365 days in weekly columns, Sunday first, with month labels', () => {
    const heatmap = buildHeatmap(new Map(), TODAY);
    expect(heatmap.days).toHaveLength(ACTIVITY.gridDays);
    expect(heatmap.days.at(-1)!.date).toBe('2025-06-18');
    expect(heatmap.days[0]!.date).toBe('2024-06-19');
    for (const week of heatmap.weeks) expect(week).toHaveLength(7);
    // 2024-06-19 is a Wednesday: three empty slots before it in the first column.
    expect(heatmap.weeks[0]!.slice(0, 3)).toEqual([null, null, null]);
    expect(heatmap.weeks[0]![3]!.date).toBe('2024-06-19');
    expect(heatmap.months.map((m) => m.label)).toEqual(['Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec', 'Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun']);
  });

  it('colours days by level: 0 none, 1, 2, 3, and 4 for four or more; hovering shows the count', async () => {
    activityDb.days = [
      { date: daysBefore(1), count: 1 },
      { date: daysBefore(2), count: 2 },
      { date: daysBefore(3), count: 3 },
      { date: daysBefore(4), count: 4 },
      { date: daysBefore(200), count: 9 }, // last year
    ];
    const { user } = renderWithProviders(<ActivityHeatmap today={TODAY} />);
    expect(screen.getByRole('status')).toHaveTextContent(ACTIVITY_TEXT.loading);
    const grid = await screen.findByRole('grid');
    const level = (date: string) => grid.querySelector(`[data-date="${date}"]`)!.getAttribute('data-level');
    expect(level(daysBefore(0))).toBe('0');
    expect(level(daysBefore(1))).toBe('1');
    expect(level(daysBefore(2))).toBe('2');
    expect(level(daysBefore(3))).toBe('3');
    expect(level(daysBefore(4))).toBe('4');
    expect(level(daysBefore(200))).toBe('4');
    expect(within(grid).getAllByRole('gridcell')).toHaveLength(365);
    for (const label of ACTIVITY.dayLabels) expect(within(grid).getByText(label)).toBeInTheDocument();
    expect(screen.getByText(ACTIVITY.legendLess)).toBeInTheDocument();
    expect(screen.getByText(ACTIVITY.legendMore)).toBeInTheDocument();

    await user.hover(grid.querySelector(`[data-date="${daysBefore(2)}"]`)!);
    expect(screen.getByRole('tooltip')).toHaveTextContent(`2 activities on ${daysBefore(2)}`);
  });

  it("shows 'Failed to load activity data' over an empty 365-day grid at level 0", async () => {
    server.use(http.get(api('/users/current/activity/grid'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    activityDb.days = [{ date: daysBefore(1), count: 3 }];
    renderWithProviders(<ActivityHeatmap today={TODAY} />);
    expect(await screen.findByRole('alert')).toHaveTextContent(ACTIVITY.loadError);
    const cells = within(screen.getByRole('grid')).getAllByRole('gridcell');
    expect(cells).toHaveLength(365);
    expect(cells.every((cell) => cell.getAttribute('data-level') === '0')).toBe(true);
  });
});

describe('activity timeline', () => {
  const now = new Date('2025-06-18T12:00:00Z');
  const ago = (ms: number): string => new Date(now.getTime() - ms).toISOString();

  it('writes relative times: just now, Nm, Nh, Nd under 30 days, then a date', () => {
    expect(relativeTime(ago(20_000), now)).toBe('just now');
    expect(relativeTime(ago(5 * 60_000), now)).toBe('5m ago');
    expect(relativeTime(ago(3 * 3_600_000), now)).toBe('3h ago');
    expect(relativeTime(ago(29 * 86_400_000), now)).toBe('29d ago');
    expect(relativeTime(ago(30 * 86_400_000), now)).toBe(new Date(ago(30 * 86_400_000)).toLocaleDateString());
  });

  it('cuts details to 100 characters', () => {
    expect(truncateDetails('x'.repeat(100))).toBe('x'.repeat(100));
    expect(truncateDetails('y'.repeat(150))).toBe(`${'y'.repeat(100)}...`);
  });

  it('labels every type the server records, keeps unknown for really unknown ones', () => {
    const labelled = Object.values(RECORDED_ACTIVITY_TYPES).map((type) => activityTitle(activity(type, { step_number: 3 }, ago(0))));
    expect(labelled).not.toContain(ACTIVITY.unknownType);
    expect(activityTitle(activity('DEPLOYMENT_FAILED', { step_number: 3 }, ago(0)))).toBe('Execution step failed (step 3)');
    expect(activityTitle(activity('PROJECT_CREATED', {}, ago(0)))).toBe('Project created');
    expect(activityTitle(activity('SOMETHING_ELSE', {}, ago(0)))).toBe(ACTIVITY.unknownType);
  });

  it('shows the types labelled, unknown ones as unknown, details cut, relative times, and filters by category', async () => {
    const summary = 'A Ghost blog with MySQL behind Caddy on one VPS, with nightly backups to object storage and TLS everywhere.';
    activityDb.timeline = [
      activity('PROJECT_WORKFLOW_COMPLETED', { project_name: 'blog', requirements_summary: summary }, ago(2 * 60_000)),
      activity('DEPLOYMENT_COMPLETED', { project_name: 'shop' }, ago(5 * 3_600_000)),
      activity('VALIDATION_COMPLETED', { project_name: 'shop' }, ago(3 * 86_400_000)),
      activity('SOMETHING_ELSE', {}, ago(40 * 86_400_000)),
    ];
    const { user } = renderWithProviders(<ActivityTimeline now={now} />);
    const list = await screen.findByRole('list', { name: 'Activity timeline' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(4));
    const items = within(list).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('Project workflow completed');
    expect(items[0]).toHaveTextContent(truncateDetails(`blog — ${summary}`));
    expect(items[0]).not.toHaveTextContent('TLS everywhere');
    expect(items[0]).toHaveTextContent('2m ago');
    expect(items[1]).toHaveTextContent('All execution steps completed');
    expect(items[1]).toHaveTextContent('5h ago');
    expect(items[2]).toHaveTextContent('Analysis');
    expect(items[2]).toHaveTextContent('3d ago');
    expect(items[3]).toHaveTextContent('Other');
    expect(items[3]).toHaveTextContent(ACTIVITY.unknownType);

    const filter = screen.getByLabelText(ACTIVITY_TEXT.filterLabel);
    expect(filter).toHaveValue(ACTIVITY.timelineDefaultFilter);
    await user.selectOptions(filter, 'validations');
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    expect(within(list).getByRole('listitem')).toHaveTextContent('Analysis');
    await user.selectOptions(filter, 'deployments');
    expect(within(list).getByRole('listitem')).toHaveTextContent('Deployments');
    await user.selectOptions(filter, 'projects');
    expect(within(list).getByRole('listitem')).toHaveTextContent('Project workflow completed');
  });

  it('the projects home shows at most 20 items, the stats and the heatmap below My Projects', async () => {
    activityDb.timeline = Array.from({ length: 30 }, (_, i) =>
      activity('PROJECT_CREATED', { project_name: `p${i}` }, new Date(Date.now() - i * 60_000).toISOString()),
    );
    activityDb.stats = { total_activities: 30, current_streak: 4 };
    renderApp('/app');
    expect(await screen.findByRole('heading', { name: HOME.title })).toBeInTheDocument();
    const region = await screen.findByRole('region', { name: ACTIVITY_TEXT.title });
    await waitFor(() => expect(within(region).getAllByRole('listitem')).toHaveLength(ACTIVITY.homeTimelineMax));
    expect(within(region).getByTestId('total-activities')).toHaveTextContent('30');
    expect(within(region).getByTestId('current-streak')).toHaveTextContent('4 days');
    expect(await within(region).findByRole('grid')).toBeInTheDocument();
  });
});
