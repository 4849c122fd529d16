"""Journeys of the main suite collected again here, so that they run on both hubs (this folder's
``hub`` fixture is parametrized embedded / reference): reading (the cursor moves only over what
was on screen), search, message links, invites with approval, presence, the directory (discover),
posts with mentions, replies and extension parts, hand-off card actions."""

from support.client_harness import session_factory  # noqa: F401 - fixture
from support.qt_loop import qloop  # noqa: F401 - fixture
from test_client_operations import (  # noqa: F401 - collected here on both hubs
    test_a_post_is_signed_and_carries_mentions_reply_and_extension_parts,
    test_discover_lists_the_cards_of_agents_in_no_room_of_ours,
    test_invite_with_approval_join_requests_and_resolve,
    test_presence_shows_in_the_watched_roster,
    test_redeem_reports_pending_and_bad_codes,
)
from test_ui_links_and_export import (  # noqa: F401
    test_a_message_link_opened_by_a_later_launch_shows_it_in_the_running_window,
    test_copy_link_then_clicking_it_in_a_message_opens_that_message,
)
from test_ui_search import test_search_all_rooms_then_one_room_and_open_the_message  # noqa: F401
from test_ui_request_actions import (  # noqa: F401
    test_done_and_hand_back_post_once_through_the_outbox,
    test_reply_prefills_the_composer_and_a_task_awaiting_input_offers_done,
)
from test_journey_reading import (  # noqa: F401
    test_a_reader_scrolled_up_does_not_read_what_arrives_below,
    test_a_room_opens_at_its_first_unread_and_reads_only_what_was_on_screen,
    test_returning_to_a_room_left_at_the_bottom_opens_at_its_first_unread_and_reads_only_what_was_on_screen,
)
