import { ACTIVITY_TYPES, type Activity } from './activity';
import { en } from './i18n/en';
import { translator, type Translate } from './i18n/translate';

/** One bar segment: a type's count on a day, stacked on the ones below it. */
export interface ChartRect {
  type: string;
  y: number;
  height: number;
}

/** A model's activity as the dashboard draws it: an SVG of stacked bars, one a day. */
export interface ActivityChart {
  id: string;
  title: string;
  /** What the picture shows, in words, for a screen reader (the SVG's desc). */
  desc: string;
  width: number;
  height: number;
  barWidth: number;
  baseline: number;
  days: { x: number; label: string; rects: ChartRect[] }[];
  first: string;
  last: string;
}

const BAR = 8;
const GAP = 2;
const PLOT = 48;
const LABELS = 14;
const DAY_FORMATS = new Map<string, Intl.DateTimeFormat>();
/** A day as `5 Mar` in the page's language (the messages' own tag: `en` reads as British English). */
function dayFormat(t: Translate): Intl.DateTimeFormat {
  const tag = t('language.tag');
  let format = DAY_FORMATS.get(tag);
  if (!format)
    DAY_FORMATS.set(tag, (format = new Intl.DateTimeFormat(tag, { day: 'numeric', month: 'short', timeZone: 'UTC' })));
  return format;
}

/**
 * The geometry of a model's chart: a bar a day, its creates, updates and deletes stacked
 * and scaled to the busiest day; each day titled with its counts, and the whole described
 * in words (totals and the busiest day), so the picture is never the only way to read it.
 */
export function activityChart(
  model: string,
  label: string,
  activity: Activity,
  t: Translate = translator(en),
): ActivityChart {
  const DAY = dayFormat(t);
  const said = (counts: Record<string, number>) =>
    t('chart.counts', { create: counts.create, update: counts.update, delete: counts.delete });
  const totals = activity.days.map((d) => d.create + d.update + d.delete);
  const busiest = Math.max(0, ...totals);
  const scale = busiest === 0 ? 0 : PLOT / busiest;
  const days = activity.days.map((counts, i) => {
    const date = DAY.format(new Date(activity.start + i * 86_400_000));
    let top = PLOT;
    const rects: ChartRect[] = [];
    for (const type of ACTIVITY_TYPES) {
      if (counts[type] === 0) continue;
      // At least a pixel, so a single event on a busy chart is still seen.
      const height = Math.max(1, counts[type] * scale);
      top -= height;
      rects.push({ type, y: round(top), height: round(height) });
    }
    return { x: i * (BAR + GAP), label: `${date}: ${said(counts)}`, rects };
  });
  const sum = { create: 0, update: 0, delete: 0 };
  for (const d of activity.days) for (const type of ACTIVITY_TYPES) sum[type] += d[type];
  const peak = totals.indexOf(busiest);
  return {
    id: `activity-${model}`,
    title: t('chart.title', { models: label, days: activity.days.length }),
    desc:
      busiest === 0
        ? t('chart.none')
        : t('chart.summary', { counts: said(sum), day: days[peak].label.split(':')[0], busiest }),
    width: activity.days.length * (BAR + GAP) - GAP,
    height: PLOT + LABELS,
    barWidth: BAR,
    baseline: PLOT,
    days,
    first: DAY.format(new Date(activity.start)),
    last: DAY.format(new Date(activity.start + (activity.days.length - 1) * 86_400_000)),
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
