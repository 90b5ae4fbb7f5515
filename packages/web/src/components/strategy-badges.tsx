/**
 * Status badges of the strategy pages: a strategy's status and a version's image status. The word is
 * always written out (colour only repeats it), so the badge reads the same to everyone.
 */
import type { components } from '../api/openapi.gen.ts';

type ImageStatus = components['schemas']['Version']['imageStatus'];

export function StrategyStatus({ status }: { status: components['schemas']['Strategy']['status'] }) {
  return (
    <span className={`strategies-badge strategies-badge-${status}`}>
      {status === 'active' ? 'Active' : 'Archived'}
    </span>
  );
}

const imageText: Record<ImageStatus, { text: string; title: string }> = {
  awaiting_push: { text: 'Awaiting push', title: 'No image yet: push one to the version repository.' },
  ready: { text: 'Ready', title: 'The image is pushed and fixed; the version can run.' },
  evicted: { text: 'Evicted', title: 'The image was deleted for good; the version can no longer run.' },
};

export function ImageStatusBadge({ status }: { status: ImageStatus }) {
  const { text, title } = imageText[status];
  return (
    <span className={`strategies-badge strategies-badge-${status}`} title={title}>
      {text}
    </span>
  );
}
