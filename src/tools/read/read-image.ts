import { EfferentError, ErrorCodes, errorMessage, type ImageMediaType } from '../../core/index.ts';
import { readLimits } from './read.prompt.ts';

/** An image ready for an image block. */
export interface ImageView {
  base64: string;
  mediaType: ImageMediaType;
  originalBytes: number;
  width: number | undefined;
  height: number | undefined;
  /** True when it was scaled or re-encoded to fit the limits. */
  resized: boolean;
}

const directTypes = new Set<string>(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** True when `mime` (from magic bytes) is an image type sharp can decode. */
export function isImageMime(mime: string): boolean {
  return mime.startsWith('image/') && mime !== 'image/svg+xml';
}

/**
 * Prepares image bytes for the model: small images in a provider-supported format pass through; large
 * ones (over 500 KB or the maximum dimension) and other formats (BMP, TIFF, AVIF…) are scaled down and
 * re-encoded, as PNG when that fits, else JPEG at falling quality.
 */
export async function prepareImage(bytes: Buffer, mime: string): Promise<ImageView> {
  const { default: sharp } = await import('sharp').catch((error: unknown) => {
    throw new EfferentError(
      ErrorCodes.toolFailed,
      `Reading images needs the optional package sharp, which is not installed (${errorMessage(error)}). Tell the user to run \`npm install sharp\` next to efferent; read the file's text content or other files meanwhile.`,
    );
  });
  const metadata = await sharp(bytes).metadata();
  const width = metadata.width;
  const height = metadata.height;
  const tooLarge =
    bytes.length > readLimits.maxImageBytes ||
    (width ?? 0) > readLimits.maxImageDimension ||
    (height ?? 0) > readLimits.maxImageDimension;
  if (directTypes.has(mime) && !tooLarge) {
    return {
      base64: bytes.toString('base64'),
      mediaType: mime as ImageMediaType,
      originalBytes: bytes.length,
      width,
      height,
      resized: false,
    };
  }
  const resize = {
    width: readLimits.maxImageDimension,
    height: readLimits.maxImageDimension,
    fit: 'inside' as const,
    withoutEnlargement: true,
  };
  const png = await sharp(bytes)
    .rotate()
    .resize(resize)
    .png({ compressionLevel: 9 })
    .toBuffer({ resolveWithObject: true });
  if (png.data.length <= readLimits.maxImageBytes) {
    return view(png.data, 'image/png', bytes.length, png.info);
  }
  let last = png;
  for (const quality of [80, 60, 40, 25]) {
    last = await sharp(bytes)
      .rotate()
      .resize(resize)
      .flatten({ background: '#ffffff' })
      .jpeg({ quality })
      .toBuffer({ resolveWithObject: true });
    if (last.data.length <= readLimits.maxImageBytes) break;
  }
  if (last.data.length > readLimits.maxImageBytes) {
    // Still too big at the lowest quality: halve the dimensions once more.
    last = await sharp(bytes)
      .rotate()
      .resize({ ...resize, width: resize.width / 2, height: resize.height / 2 })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 40 })
      .toBuffer({ resolveWithObject: true });
  }
  return view(last.data, 'image/jpeg', bytes.length, last.info);
}

function view(
  data: Buffer,
  mediaType: ImageMediaType,
  originalBytes: number,
  info: { width: number; height: number },
): ImageView {
  return {
    base64: data.toString('base64'),
    mediaType,
    originalBytes,
    width: info.width,
    height: info.height,
    resized: true,
  };
}
