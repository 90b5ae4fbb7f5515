/**
 * Status badges of the strategy pages: a strategy's status and a version's image status, in the
 * app's badge tones (styles.css). The word is always written out (colour only repeats it).
 */
import type { components } from '../api/openapi.gen.ts';

type ImageStatus = components['schemas']['Version']['imageStatus'];

export function StrategyStatus({ status }: { status: components['schemas']['Strategy']['status'] }) {
  return (
    <span className={`badge ${status === 'active' ? 'badge-good' : 'badge-neutral'}`}>
      {status === 'active' ? 'Active' : 'Archived'}
    </span>
  );
}

const imageText: Record<ImageStatus, { text: string; title: string; tone: string }> = {
  awaiting_push: {
    text: 'Awaiting push',
    title: 'No image yet: push one to the version repository.',
    tone: 'warn',
  },
  ready: { text: 'Ready', title: 'The image is pushed and fixed; the version can run.', tone: 'good' },
  evicted: {
    text: 'Evicted',
    title: 'The image was deleted for good; the version can no longer run.',
    tone: 'neutral',
  },
};

export function ImageStatusBadge({ status }: { status: ImageStatus }) {
  const { text, title, tone } = imageText[status];
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {text}
    </span>
  );
}
