/**
 * A prompt is data plus one function, like a tool: `definePrompt({ name, title, description,
 * args, build })`. Prompt arguments travel as strings (MCP prompts/get), so each `args` schema
 * parses strings into typed values and says, on failure, which argument is wrong and what it
 * accepts. `build` returns the text of the user message that tells the assistant which tools to
 * call, by their exact names, and what to produce.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/prompts
 */
import type { z } from "zod";

export interface PromptDefinition<A extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  args: A;
  /** Method syntax on purpose: a list of prompts with different argument types stays one type. */
  build(args: z.output<A>): string;
}

export function definePrompt<A extends z.ZodObject>(def: PromptDefinition<A>): PromptDefinition<A> {
  return def;
}
