/**
 * The longest item description and post text the example accepts, in characters: with
 * every text field bounded, no row (and no page of rows) grows without limit. Rows stored
 * before these bounds keep their text; the list routes' byte bound still caps any page.
 */
export const ITEM_DESCRIPTION_MAX = 2000;
export const POST_TEXT_MAX = 10_000;
export const NOTE_BODY_MAX = 10_000;
