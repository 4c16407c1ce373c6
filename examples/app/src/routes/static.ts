import type { RouteDescriptor } from '@crudsmith/core';
import type { AvatarStore } from '../avatars';
import { DEFAULT_AVATAR_URL } from '../models/user';

// The default avatar every profile_image_url points at until an upload replaces it.
const AVATAR = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#d5d9e0"/><circle cx="32" cy="24" r="12" fill="#8a93a3"/><path d="M10 60c2-14 12-20 22-20s20 6 22 20z" fill="#8a93a3"/></svg>`;

/** Files the example serves itself (no outside URL): the default avatar and the uploaded ones. */
export function staticRoutes(avatars: AvatarStore): RouteDescriptor[] {
  return [
    {
      method: 'GET',
      path: DEFAULT_AVATAR_URL,
      operation: 'static_default_avatar',
      dependencies: [],
      handler: async () => ({
        status: 200,
        headers: {
          'Content-Type': 'image/svg+xml',
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'public, max-age=86400',
        },
        body: AVATAR,
      }),
    },
    avatars.route(),
  ];
}
