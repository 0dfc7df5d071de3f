/** Model providers behind one stream-event model: Anthropic, OpenAI-compatible, and scripted replay. */
export { type AnthropicProviderOptions, createAnthropicProvider } from './anthropic.ts';
export { toAnthropicMessages, toAnthropicSystem, toAnthropicTools } from './anthropic-request.ts';
export { createOpenAIProvider, type OpenAIProviderOptions } from './openai.ts';
export { toOpenAIMessages, toOpenAITools } from './openai-request.ts';
export { createScriptedProvider, type ScriptedProvider, type ScriptedProviderOptions } from './replay.ts';
export { loadSessionFile, parseSessionFile, type ScriptedEvent, type ScriptedTurn } from './session-file.ts';
export { describeTools, type ToolDescriptor } from './tool-definitions.ts';
export { ToolInputAccumulator } from './tool-input-accumulator.ts';
