from model.core.threads import MAX_STEP_THREADS, step_threads
from model.transformer.config import TransformerConfig

SMALL = TransformerConfig(vocab_size=70, d_model=128, n_heads=4, d_ff=256)
LARGE = TransformerConfig(
    vocab_size=8000, d_model=512, n_heads=8, n_encoder_layers=6, n_decoder_layers=6, d_ff=2048
)


def test_small_models_step_on_one_thread_whatever_the_machine():
    assert [step_threads(SMALL.parameter_count(), cores) for cores in (1, 2, 8, 64)] == [1, 1, 1, 1]


def test_large_models_leave_cores_for_the_gui_and_stop_at_the_cap():
    parameters = LARGE.parameter_count()
    assert step_threads(parameters, 2) == 1
    assert step_threads(parameters, 6) == 3
    assert step_threads(parameters, 64) == MAX_STEP_THREADS


def test_a_model_not_known_yet_gets_what_any_model_would_on_that_machine():
    assert step_threads(None, 2) == 1
    assert step_threads(None, 64) == MAX_STEP_THREADS
