import type { Request, Response } from 'express'

/** GET /api/v1/custom_emojis — Roost has no custom emoji: an empty list, as a server with none answers. */
export function customEmojis(_req: Request, res: Response) {
  res.json([])
}
