/**
 * The tool result envelope (product.md, "The tool result"). Every answer is checked against
 * `envelopeSchema(dataSchema)` and sent without its null fields, as structuredContent and as
 * text; the tool's listed outputSchema is this schema's outline (lib/mcp/register.ts).
 */
import { z } from "zod";

export const warningSchema = z.object({
  code: z.string(),
  message: z.string(),
  institution: z.string().optional(),
  connection_id: z.string().optional(),
  action_url: z.string().optional(),
  /** HIDDEN_ACCOUNTS: how many accounts the answer leaves out. */
  count: z.number().int().optional(),
});
export type Warning = z.infer<typeof warningSchema>;

export const pageSchema = z.object({
  next_cursor: z.string().optional(),
  has_more: z.boolean(),
  total_count: z.number().int(),
});
export type Page = z.infer<typeof pageSchema>;

/** The output schema of a tool: the envelope every answer has, with the tool's own `data`. */
export function envelopeSchema<D extends z.ZodType>(data: D) {
  return z.object({
    status: z.enum(["ok", "setup_required"]),
    setup_url: z.string().optional(),
    message: z.string().optional(),
    data: data.optional(),
    warnings: z.array(warningSchema),
    as_of: z.string().optional(),
    page: pageSchema.optional(),
  });
}

/**
 * `MIXED_CURRENCIES` when the answer's data spans more than one currency (product.md,
 * "Currency"): its totals are then given once per currency, never added across them.
 */
export function mixedCurrencyWarnings(currencies: Iterable<string>): Warning[] | undefined {
  const distinct = [...new Set(currencies)].sort();
  if (distinct.length < 2) return undefined;
  return [
    {
      code: "MIXED_CURRENCIES",
      message: `The data is in several currencies (${distinct.join(", ")}): each total is given per currency, without conversion.`,
    },
  ];
}
