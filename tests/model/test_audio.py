"""Audio files: every format, rate and channel count read to the same mono window, by value;
long files read one window only; every bad file refused in one line that names it."""

import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

soundfile = pytest.importorskip("soundfile")
pytest.importorskip("soxr")

from model.audio import (  # noqa: E402
    AudioError,
    AudioSupportMissing,
    load_audio,
    save_wav,
    supported_suffixes,
)

RATE = 16_000
READS = "WAV, FLAC, Ogg Vorbis, Opus, MP3 and AIFF"  # what this soundfile's libsndfile reads
LOSSLESS = {"WAV": ("PCM_16", ".wav"), "FLAC": ("PCM_16", ".flac")}
LOSSY = {"VORBIS": ("OGG", ".ogg"), "OPUS": ("OGG", ".opus"), "MPEG_LAYER_III": ("MP3", ".mp3")}
# the rates each lossy encoder of libsndfile writes
OPUS_RATES = {8_000, 12_000, 16_000, 24_000, 48_000}
MP3_RATES = {8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000}


def sine(rate: int, seconds: float, hz: float = 440.0, amplitude: float = 0.5) -> np.ndarray:
    return (amplitude * np.sin(2 * np.pi * hz * np.arange(round(rate * seconds)) / rate)).astype(np.float32)


def peak_hz(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[np.argmax(spectrum)])


def middle(samples: np.ndarray) -> np.ndarray:
    """The samples away from both ends, where encoders' and the resampler's edges do not reach."""
    return samples[len(samples) // 10 : -len(samples) // 10]


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(middle(samples), dtype=np.float64))))


def assert_is_the_sine(clip, seconds: float, amplitude: float, tolerance: float) -> None:
    assert clip.rate == RATE and clip.samples.dtype == np.float32 and clip.samples.ndim == 1
    assert abs(len(clip.samples) - RATE * seconds) <= 2
    assert abs(peak_hz(clip.samples, RATE) - 440) <= RATE / len(clip.samples)  # one FFT bin
    assert rms(clip.samples) == pytest.approx(amplitude / np.sqrt(2), rel=tolerance)
    assert np.abs(clip.samples).max() <= 1.0
    assert not clip.truncated and not clip.damaged and clip.notice is None


@pytest.mark.parametrize("rate", [8_000, 22_050, 44_100, 48_000, 96_000])
@pytest.mark.parametrize("kind", sorted(LOSSLESS))
def test_lossless_files_at_any_rate_are_the_same_sine_at_16_khz(tmp_path, kind, rate):
    subtype, suffix = LOSSLESS[kind]
    path = tmp_path / f"tone{suffix}"
    soundfile.write(path, sine(rate, 1.0), rate, format=kind, subtype=subtype)
    clip = load_audio(path)
    assert (clip.source_rate, clip.channels, clip.duration_s) == (rate, 1, 1.0)
    assert_is_the_sine(clip, 1.0, 0.5, tolerance=0.01)


@pytest.mark.parametrize("rate", [8_000, 22_050, 44_100, 48_000, 96_000])
@pytest.mark.parametrize("subtype", sorted(LOSSY))
def test_lossy_files_at_any_rate_they_can_hold_are_the_sine(tmp_path, subtype, rate):
    kind, suffix = LOSSY[subtype]
    if subtype == "OPUS" and rate not in OPUS_RATES:
        pytest.skip(f"Opus holds only {sorted(OPUS_RATES)} Hz; libsndfile refuses to write {rate} Hz")
    if subtype == "MPEG_LAYER_III" and rate not in MP3_RATES:
        pytest.skip(f"MPEG-1/2/2.5 audio holds at most 48 kHz; libsndfile refuses to write {rate} Hz")
    path = tmp_path / f"tone{suffix}"
    soundfile.write(path, sine(rate, 1.0), rate, format=kind, subtype=subtype)
    clip = load_audio(path)
    assert (clip.source_rate, clip.channels, clip.duration_s) == (rate, 1, 1.0)
    assert_is_the_sine(clip, 1.0, 0.5, tolerance=0.1)


def test_aiff_is_read_too(tmp_path):
    soundfile.write(tmp_path / "tone.aiff", sine(44_100, 1.0), 44_100, format="AIFF", subtype="PCM_16")
    assert_is_the_sine(load_audio(tmp_path / "tone.aiff"), 1.0, 0.5, tolerance=0.01)


@pytest.mark.parametrize("kind", ["WAV", "FLAC"])
def test_stereo_is_mixed_down_by_the_mean_opposite_channels_cancel(tmp_path, kind):
    tone = sine(44_100, 1.0)
    path = tmp_path / f"opposite.{kind.lower()}"
    soundfile.write(path, np.stack([tone, -tone], axis=1), 44_100, format=kind, subtype="PCM_16")
    clip = load_audio(path)
    assert clip.channels == 2
    assert np.abs(clip.samples).max() < 1e-4


def test_two_constant_channels_mix_to_their_mean(tmp_path):
    frames = np.tile(np.float32([0.2, 0.6]), (16_000, 1))  # [N, 2]
    soundfile.write(tmp_path / "levels.wav", frames, RATE, subtype="FLOAT")
    clip = load_audio(tmp_path / "levels.wav")
    np.testing.assert_allclose(clip.samples, 0.4, atol=1e-6)


def test_six_channels_are_mixed_down_by_the_mean(tmp_path):
    # channel c carries the sine at c / 5 of its level: their mean is the sine at half its level
    tone = sine(48_000, 1.0, amplitude=0.8)
    frames = np.stack([tone * (c / 5) for c in range(6)], axis=1)  # [N, 6]
    soundfile.write(tmp_path / "surround.flac", frames, 48_000, subtype="PCM_24")
    clip = load_audio(tmp_path / "surround.flac")
    assert clip.channels == 6
    assert_is_the_sine(clip, 1.0, 0.4, tolerance=0.01)


@pytest.mark.parametrize("subtype", ["VORBIS", "MPEG_LAYER_III"])
def test_stereo_lossy_files_are_mixed_down(tmp_path, subtype):
    kind, suffix = LOSSY[subtype]
    tone = sine(48_000, 1.0)
    path = tmp_path / f"stereo{suffix}"
    soundfile.write(path, np.stack([tone, tone * 0], axis=1), 48_000, format=kind, subtype=subtype)
    clip = load_audio(path)
    assert clip.channels == 2
    assert_is_the_sine(clip, 1.0, 0.25, tolerance=0.1)


def test_the_rate_asked_for_is_the_rate_given(tmp_path):
    save_wav(tmp_path / "tone.wav", sine(44_100, 2.0), 44_100)
    clip = load_audio(tmp_path / "tone.wav", rate=np.int64(24_000))  # a count from numpy is a count
    assert clip.rate == 24_000 and abs(len(clip.samples) - 48_000) <= 2
    assert abs(peak_hz(clip.samples, 24_000) - 440) <= 0.5


def test_a_lossy_file_at_full_scale_stays_within_full_scale(tmp_path):
    soundfile.write(tmp_path / "loud.mp3", sine(44_100, 1.0, amplitude=1.0), 44_100)
    assert soundfile.read(tmp_path / "loud.mp3")[0].max() > 1.0  # the decoder overshoots
    clip = load_audio(tmp_path / "loud.mp3")
    assert np.abs(clip.samples).max() <= 1.0
    assert not clip.samples.flags.writeable


# -- long files: the first window only ----------------------------------------------------------


@pytest.fixture(scope="module")
def two_hours(tmp_path_factory) -> Path:
    """A two-hour 8 kHz FLAC: a 440 Hz sine for 30 s, a 1 kHz one for the next minute, then
    silence (FLAC stores silence in almost nothing: 0.5 s to write here, 180 kB)."""
    rate = 8_000
    path = tmp_path_factory.mktemp("long") / "speech.flac"
    with soundfile.SoundFile(path, "w", rate, 1, format="FLAC", subtype="PCM_16") as file:
        file.write(sine(rate, 30.0))
        file.write(sine(rate, 60.0, hz=1000.0))
        silence = np.zeros(rate * 60, np.float32)
        for _ in range(118):
            file.write(silence)
        file.write(silence[: rate * 30])
    return path


def test_a_long_file_gives_its_first_30_s_and_says_so(two_hours):
    clip = load_audio(two_hours)
    assert clip.truncated and not clip.damaged
    assert clip.duration_s == 7200.0 and clip.source_rate == 8_000
    assert clip.notice == "speech.flac is 2 h 0 min long; the model hears its first 30 s"
    assert abs(len(clip.samples) - 30 * RATE) <= 2
    assert abs(peak_hz(clip.samples, RATE) - 440) <= RATE / len(clip.samples)
    assert rms(clip.samples) == pytest.approx(0.5 / np.sqrt(2), rel=0.01)


def test_a_long_file_is_read_no_further_than_its_window(two_hours, monkeypatch):
    read = []
    original = soundfile.SoundFile.read

    def counting_read(self, frames=-1, *args, **kwargs):
        block = original(self, frames, *args, **kwargs)
        read.append(len(block))
        return block

    monkeypatch.setattr(soundfile.SoundFile, "read", counting_read)
    load_audio(two_hours)
    assert sum(read) == 30 * 8_000


def test_a_long_file_costs_the_memory_of_its_window(two_hours):
    window_bytes = 30 * RATE * 4  # float32 at 16 kHz: 1.9 MB; the whole file would be 230 MB at 8 kHz
    tracemalloc.start()
    try:
        clip = load_audio(two_hours)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert clip.samples.nbytes == pytest.approx(window_bytes, abs=16)
    assert peak < 4 * window_bytes


def test_the_window_is_what_max_seconds_says(tmp_path):
    save_wav(tmp_path / "talk.wav", sine(8_000, 45.0), 8_000)
    clip = load_audio(tmp_path / "talk.wav", max_seconds=5)
    assert clip.truncated and abs(len(clip.samples) - 5 * RATE) <= 2
    assert clip.notice == "talk.wav is 45 s long; the model hears its first 5 s"
    assert load_audio(tmp_path / "talk.wav").notice == "talk.wav is 45 s long; the model hears its first 30 s"
    whole = load_audio(tmp_path / "talk.wav", max_seconds=None)
    assert not whole.truncated and whole.notice is None and abs(len(whole.samples) - 45 * RATE) <= 2


def test_minutes_are_said_in_minutes(tmp_path):
    save_wav(tmp_path / "lecture.wav", np.zeros(8_000 * 603, np.float32), 8_000)
    assert load_audio(tmp_path / "lecture.wav").notice == (
        "lecture.wav is 10 min 3 s long; the model hears its first 30 s"
    )


def test_a_file_exactly_as_long_as_the_window_is_whole(tmp_path):
    save_wav(tmp_path / "exact.wav", sine(8_000, 30.0), 8_000)
    clip = load_audio(tmp_path / "exact.wav")
    assert not clip.truncated and clip.notice is None


@pytest.mark.parametrize("bad", [0, -1, 16_000.0, True])
def test_a_rate_that_is_not_a_positive_whole_number_is_refused(tmp_path, bad):
    save_wav(tmp_path / "tone.wav", sine(RATE, 0.1), RATE)
    with pytest.raises(ValueError, match="rate must be a positive whole number"):
        load_audio(tmp_path / "tone.wav", rate=bad)


@pytest.mark.parametrize("bad", [0, -3.0, float("nan"), float("inf")])
def test_a_window_that_is_not_positive_and_finite_is_refused(tmp_path, bad):
    save_wav(tmp_path / "tone.wav", sine(RATE, 0.1), RATE)
    with pytest.raises(ValueError, match="max_seconds must be positive and finite, or None"):
        load_audio(tmp_path / "tone.wav", max_seconds=bad)


# -- files cut short in their data: what is there, with a notice --------------------------------


def test_a_wav_cut_in_its_data_gives_what_is_there_and_says_so(tmp_path):
    save_wav(tmp_path / "whole.wav", sine(RATE, 1.0), RATE)
    data = (tmp_path / "whole.wav").read_bytes()
    (tmp_path / "cut.wav").write_bytes(data[: 44 + RATE])  # the header and half a second
    clip = load_audio(tmp_path / "cut.wav")
    assert clip.damaged and not clip.truncated and clip.duration_s == 0.5
    assert abs(len(clip.samples) - RATE // 2) <= 2
    assert clip.notice == (
        "cut.wav stops after 0.5 s, sooner than its header says (the file is cut short or damaged); "
        "the model hears what is there"
    )


def test_a_long_wav_cut_in_its_data_says_both(tmp_path):
    save_wav(tmp_path / "whole.wav", sine(8_000, 60.0), 8_000)
    data = (tmp_path / "whole.wav").read_bytes()
    (tmp_path / "cut.wav").write_bytes(data[: 44 + 2 * 8_000 * 45])
    clip = load_audio(tmp_path / "cut.wav")
    assert clip.damaged and clip.truncated and clip.duration_s == 45.0
    assert clip.notice == (
        "cut.wav is 45 s long (less than its header says: it is cut short or damaged); "
        "the model hears its first 30 s"
    )


def test_a_wav_whose_header_says_streaming_is_whole(tmp_path):
    """Writers that stream (a pipe) put 0xFFFFFFFF where the length goes: that is no damage."""
    save_wav(tmp_path / "stream.wav", sine(RATE, 1.0), RATE)
    data = bytearray((tmp_path / "stream.wav").read_bytes())
    data[4:8] = data[40:44] = b"\xff\xff\xff\xff"
    (tmp_path / "stream.wav").write_bytes(bytes(data))
    clip = load_audio(tmp_path / "stream.wav")
    assert not clip.damaged and clip.notice is None and clip.duration_s == 1.0


@pytest.mark.parametrize("kind", ["FLAC", "MP3"])
def test_a_flac_or_mp3_cut_in_its_data_gives_the_part_before_the_cut(tmp_path, kind):
    suffix = f".{kind.lower()}"
    soundfile.write(tmp_path / f"whole{suffix}", sine(8_000, 20.0), 8_000, format=kind)
    data = (tmp_path / f"whole{suffix}").read_bytes()
    (tmp_path / f"cut{suffix}").write_bytes(data[: len(data) // 2])
    clip = load_audio(tmp_path / f"cut{suffix}")
    assert clip.damaged and not clip.truncated
    assert 4.0 < clip.duration_s < 16.0  # up to the cut, less what the decoder lost at it
    assert abs(len(clip.samples) - clip.duration_s * RATE) <= 2
    assert clip.notice.startswith(f"cut{suffix} stops after ")
    assert abs(peak_hz(clip.samples, RATE) - 440) <= RATE / len(clip.samples)


# -- bad files: one line, the file's name first -------------------------------------------------


def refused(path) -> str:
    with pytest.raises(AudioError) as caught:
        load_audio(path)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    assert isinstance(caught.value, ValueError)
    return message


def test_a_missing_file(tmp_path):
    assert refused(tmp_path / "nothing.wav") == "nothing.wav: no such file"


def test_a_folder(tmp_path):
    (tmp_path / "recordings.wav").mkdir()
    assert refused(tmp_path / "recordings.wav") == "recordings.wav: is a folder, not an audio file"


def test_an_empty_file(tmp_path):
    (tmp_path / "empty.wav").write_bytes(b"")
    assert refused(tmp_path / "empty.wav") == "empty.wav: is empty (0 bytes)"


def test_a_text_file_named_wav(tmp_path):
    (tmp_path / "notes.wav").write_text("Remember to record the lecture.\n" * 20)
    assert refused(tmp_path / "notes.wav") == (
        f"notes.wav: is not audio but text (the app reads {READS} files)"
    )


def test_a_png_named_wav(tmp_path):
    (tmp_path / "photo.wav").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    assert refused(tmp_path / "photo.wav") == (
        f"photo.wav: is not audio but a PNG image (the app reads {READS} files)"
    )


def test_bytes_in_no_format(tmp_path):
    (tmp_path / "noise.wav").write_bytes(bytes(range(256)) * 8)
    assert refused(tmp_path / "noise.wav") == f"noise.wav: is not in an audio format the app reads ({READS})"


@pytest.mark.parametrize("keep", [12, 20, 40])
def test_a_wav_cut_in_its_header(tmp_path, keep):
    save_wav(tmp_path / "whole.wav", sine(RATE, 1.0), RATE)
    (tmp_path / "cut.wav").write_bytes((tmp_path / "whole.wav").read_bytes()[:keep])
    # the library's short reason may follow in parentheses
    assert refused(tmp_path / "cut.wav").startswith("cut.wav: is damaged or cut short and cannot be opened")


@pytest.mark.parametrize("kind", ["FLAC", "OGG", "MP3"])
def test_a_compressed_file_cut_in_its_header(tmp_path, kind):
    suffix = f".{kind.lower()}"
    soundfile.write(tmp_path / f"whole{suffix}", sine(RATE, 1.0), RATE, format=kind)
    (tmp_path / f"cut{suffix}").write_bytes((tmp_path / f"whole{suffix}").read_bytes()[:20])
    message = refused(tmp_path / f"cut{suffix}")
    assert message.startswith(f"cut{suffix}: is damaged or cut short and cannot be opened")
    assert "does not exist" not in message  # what libsndfile says of a broken MP3, which is there


def test_an_ogg_cut_in_its_data_is_refused(tmp_path):
    """libsndfile reads an Ogg file's end to learn its length: a cut one cannot be opened."""
    soundfile.write(tmp_path / "whole.ogg", sine(RATE, 1.0), RATE)
    data = (tmp_path / "whole.ogg").read_bytes()
    (tmp_path / "cut.ogg").write_bytes(data[: len(data) // 2])
    assert refused(tmp_path / "cut.ogg").startswith("cut.ogg: is damaged or cut short and cannot be opened")


def test_a_flac_damaged_before_any_sound_is_refused(tmp_path):
    soundfile.write(tmp_path / "whole.flac", sine(RATE, 1.0), RATE)
    data = (tmp_path / "whole.flac").read_bytes()
    (tmp_path / "cut.flac").write_bytes(data[: len(data) // 2])  # inside its first block of frames
    assert refused(tmp_path / "cut.flac") == (
        "cut.flac: is damaged: no sound can be decoded from it (flac decoder lost sync)"
    )


def test_a_file_with_no_frames(tmp_path):
    soundfile.write(tmp_path / "silent.wav", np.zeros(0, np.float32), RATE)
    assert refused(tmp_path / "silent.wav") == "silent.wav: has no sound: 0 samples"


@pytest.mark.parametrize("rate", [4_000, 384_000])
def test_a_sample_rate_outside_what_is_read(tmp_path, rate):
    soundfile.write(tmp_path / "odd.wav", sine(rate, 0.1), rate)
    assert refused(tmp_path / "odd.wav") == (
        f"odd.wav: its sample rate, {rate:,} Hz, is outside the 8,000–192,000 Hz this app reads"
    )


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_samples_that_are_not_numbers(tmp_path, value):
    samples = sine(RATE, 1.0)
    samples[8_000] = value
    soundfile.write(tmp_path / "broken.wav", samples, RATE, subtype="FLOAT")
    assert refused(tmp_path / "broken.wav") == (
        "broken.wav: sample 8,000 (0.500 s) is not a number (NaN or infinity)"
    )


def test_samples_far_beyond_full_scale(tmp_path):
    soundfile.write(tmp_path / "scaled.wav", sine(RATE, 1.0, amplitude=32_767.0), RATE, subtype="FLOAT")
    assert refused(tmp_path / "scaled.wav") == (
        "scaled.wav: its samples reach 32767, far beyond full scale (-1 to 1): it was saved on another scale"
    )


def test_a_name_with_a_line_break_is_still_one_line(tmp_path):
    assert refused(tmp_path / "two\nlines.wav") == "two lines.wav: no such file"


# -- without the [audio] extra -------------------------------------------------------------------


@pytest.mark.parametrize("package", ["soundfile", "soxr"])
def test_a_missing_package_says_what_to_install(tmp_path, monkeypatch, package):
    save_wav(tmp_path / "tone.wav", sine(44_100, 0.1), 44_100)
    monkeypatch.setitem(sys.modules, package, None)  # import fails as if it were not installed
    with pytest.raises(AudioSupportMissing) as caught:
        load_audio(tmp_path / "tone.wav")
    assert str(caught.value) == (
        f"reading audio files needs the {package} package: pip install 'attention-visualizer[audio]'"
    )


@pytest.mark.slow
def test_importing_the_module_needs_neither_the_extra_nor_torch():
    probe = (
        "import sys; sys.modules['soundfile'] = sys.modules['soxr'] = None; import model.audio; "
        "heavy = ('torch', 'transformers', 'PySide6', 'soundfile', 'soxr'); "
        "print(sorted(m for m in heavy if sys.modules.get(m)))"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


# -- saving, and what the open dialog offers -----------------------------------------------------


def test_save_wav_writes_16_bit_pcm_that_reads_back(tmp_path):
    stereo = np.stack([sine(22_050, 0.5), -sine(22_050, 0.5, amplitude=0.25)], axis=1)
    save_wav(tmp_path / "out.wav", stereo, 22_050)
    info = soundfile.info(tmp_path / "out.wav")
    assert (info.format, info.subtype, info.samplerate, info.channels) == ("WAV", "PCM_16", 22_050, 2)
    back, _ = soundfile.read(tmp_path / "out.wav", dtype="float32")
    np.testing.assert_allclose(back, stereo, atol=1 / 32_767)
    assert not (tmp_path / "out.wav.tmp").exists()


def test_save_wav_clips_instead_of_wrapping_around(tmp_path):
    save_wav(tmp_path / "hot.wav", np.float32([1.5, -1.5, 0.5]), RATE)
    back, _ = soundfile.read(tmp_path / "hot.wav", dtype="float32")
    np.testing.assert_allclose(back, [1.0, -1.0, 0.5], atol=1 / 32_767)


@pytest.mark.parametrize(
    ("samples", "rate", "says"),
    [
        (np.zeros(0), RATE, "not empty"),
        (np.zeros((2, 2, 2)), RATE, "shape"),
        (np.float32([0.1, np.nan]), RATE, "finite"),
        (np.zeros(10), 0, "rate"),
    ],
)
def test_save_wav_refuses_what_is_not_sound(tmp_path, samples, rate, says):
    with pytest.raises(ValueError, match=says):
        save_wav(tmp_path / "out.wav", samples, rate)
    assert not (tmp_path / "out.wav").exists()


def test_the_suffixes_offered_are_what_this_libsndfile_reads():
    assert supported_suffixes() == (".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aif", ".aiff")


WRITERS = {
    ".wav": ("WAV", "PCM_16"),
    ".flac": ("FLAC", "PCM_16"),
    ".ogg": ("OGG", "VORBIS"),
    ".oga": ("OGG", "VORBIS"),
    ".opus": ("OGG", "OPUS"),
    ".mp3": ("MP3", "MPEG_LAYER_III"),
    ".aif": ("AIFF", "PCM_16"),
    ".aiff": ("AIFF", "PCM_16"),
}


def test_every_suffix_offered_opens(tmp_path):
    for suffix in supported_suffixes():
        kind, subtype = WRITERS[suffix]
        soundfile.write(tmp_path / f"tone{suffix}", sine(48_000, 1.0), 48_000, format=kind, subtype=subtype)
        assert abs(peak_hz(load_audio(tmp_path / f"tone{suffix}").samples, RATE) - 440) <= 1, suffix


def test_a_format_this_libsndfile_lacks_is_not_offered(monkeypatch):
    formats = {name: text for name, text in soundfile.available_formats().items() if name != "MP3"}
    monkeypatch.setattr(soundfile, "available_formats", lambda: formats)
    assert ".mp3" not in supported_suffixes() and ".wav" in supported_suffixes()
