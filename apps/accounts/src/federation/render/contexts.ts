/** The JSON-LD contexts Roost's documents use, as Mastodon's (its ActivityPub::Adapter). */
export const AS = 'https://www.w3.org/ns/activitystreams'
export const SECURITY = 'https://w3id.org/security/v1'
export const PUBLIC_COLLECTION = 'https://www.w3.org/ns/activitystreams#Public'

export const ACTOR_CONTEXT = [
  AS,
  SECURITY,
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
    movedTo: { '@id': 'as:movedTo', '@type': '@id' },
    schema: 'http://schema.org#',
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    discoverable: 'toot:discoverable',
    suspended: 'toot:suspended',
    memorial: 'toot:memorial',
    indexable: 'toot:indexable',
    Emoji: 'toot:Emoji',
  },
]

export const NOTE_CONTEXT = [
  AS,
  {
    sensitive: 'as:sensitive',
    Hashtag: 'as:Hashtag',
    toot: 'http://joinmastodon.org/ns#',
    blurhash: 'toot:blurhash',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
    votersCount: 'toot:votersCount',
    Emoji: 'toot:Emoji',
    // Quotes (docs/federation.md, "Quotes"), as Mastodon 4.5's context extensions.
    quote: 'https://w3id.org/fep/044f#quote',
    quoteUri: 'http://fedibird.com/ns#quoteUri',
    _misskey_quote: 'https://misskey-hub.net/ns#_misskey_quote',
    quoteAuthorization: { '@id': 'https://w3id.org/fep/044f#quoteAuthorization', '@type': '@id' },
    gts: 'https://gotosocial.org/ns#',
    interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
    canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
    automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
    manualApproval: { '@id': 'gts:manualApproval', '@type': '@id' },
  },
]

/** The context of QuoteRequest, QuoteAuthorization and their answers (Mastodon's `quote_requests` extension). */
export const QUOTE_CONTEXT = [
  AS,
  {
    QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest',
    QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization',
    gts: 'https://gotosocial.org/ns#',
    interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' },
    interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' },
  },
]

/** MIME types of ActivityPub documents; either in `Accept` asks for JSON rather than a page. */
export const ACTIVITY_JSON = 'application/activity+json'
export const LD_JSON_ACTIVITYSTREAMS = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
