"""The bilingual answer vocabulary: what the VQA head can answer, in English and Russian.

Every Russian form is written as the organizers' normalization leaves it
(pymorphy normal form, digits for numbers, see ``normalize.py``), so that a gold
answer written the same way can match. Only the prediction is normalized, so a
phrase whose words do not agree once lemmatized ("разделочная доска" becomes
"разделочный доска") can never match a natural gold answer: such entries use the
head noun alone ("доска"), which is its own normal form; ``tests/vqa/test_answers.py`` checks it.
Entries are grouped by category; a question that names a category ("what
sport", "какого цвета") is answered from that category.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from plugins.vqa.normalize import normalize_answer

# "english=russian" pairs separated by commas, one block per category.
_BLOCKS: dict[str, str] = {
    "yesno": "yes=да, no=нет",
    "count": (
        "0=0, 1=1, 2=2, 3=3, 4=4, 5=5, 6=6, 7=7, 8=8, 9=9, 10=10, 11=11, 12=12, 13=13, 14=14, 15=15, "
        "16=16, 18=18, 20=20, 24=24, 25=25, 30=30, 50=50, 100=100"
    ),
    "color": (
        "white=белый, black=чёрный, red=красный, blue=синий, green=зелёный, yellow=жёлтый, brown=коричневый, "
        "gray=серый, orange=оранжевый, pink=розовый, purple=фиолетовый, silver=серебристый, gold=золотой, "
        "tan=бежевый, beige=бежевый, light blue=голубой, black and white=чёрно-белый, multicolored=разноцветный"
    ),
    "animal": (
        "dog=собака, cat=кошка, horse=лошадь, cow=корова, sheep=овца, elephant=слон, giraffe=жираф, zebra=зебра, "
        "bear=медведь, bird=птица, duck=утка, seagull=чайка, pigeon=голубь, goose=гусь, parrot=попугай, owl=сова, "
        "eagle=орёл, chicken=курица, swan=лебедь, penguin=пингвин, finch=зяблик, sparrow=воробей, hawk=ястреб, "
        "fish=рыба, shark=акула, whale=кит, dolphin=дельфин, lion=лев, tiger=тигр, monkey=обезьяна, goat=коза, "
        "pig=свинья, deer=олень, rabbit=кролик, mouse=мышь, teddy bear=плюшевый мишка, "
        "cattle=скот, puppy=щенок, kitten=котёнок, pony=пони, camel=верблюд, fox=лиса, wolf=волк, "
        "labrador=лабрадор, german shepherd=овчарка, poodle=пудель, beagle=бигль, terrier=терьер, "
        "holstein=голштинский, grizzly=гризли, polar bear=белый медведь, mammal=млекопитающее, reptile=рептилия"
    ),
    "sport": (
        "tennis=теннис, baseball=бейсбол, soccer=футбол, football=футбол, basketball=баскетбол, "
        "skiing=лыжи, snowboarding=сноуборд, surfing=сёрфинг, skateboarding=скейтборд, frisbee=фрисби, "
        "volleyball=волейбол, golf=гольф, hockey=хоккей, rugby=регби, cricket=крикет, kite flying=воздушный змей, "
        "swimming=плавание, boxing=бокс, running=бег, cycling=велоспорт, softball=софтбол"
    ),
    "food": (
        "pizza=пицца, sandwich=бутерброд, cake=торт, donut=пончик, hot dog=хотдог, banana=банан, apple=яблоко, "
        "orange fruit=апельсин, broccoli=брокколи, carrot=морковь, salad=салат, bread=хлеб, meat=мясо, "
        "chicken meat=курица, beef=говядина, pork=свинина, fish food=рыба, rice=рис, pasta=паста, soup=суп, "
        "cheese=сыр, egg=яйцо, eggs=яйцо, fruit=фрукт, vegetables=овощ, tomato=помидор, onion=лук, potato=картофель, "
        "fries=картошка фри, burger=бургер, hamburger=гамбургер, steak=стейк, cookie=печенька, "
        "chocolate=шоколад, ice cream=мороженое, coffee=кофе, tea=чай, water=вода, milk=молоко, juice=сок, "
        "wine=вино, beer=пиво, breakfast=завтрак, lunch=обед, dinner=ужин, dessert=десерт, spinach=шпинат, "
        "pepperoni=пепперони, mushroom=гриб, grapes=виноград, lemon=лимон, strawberry=клубника, cereal=хлопья, "
        "sugar=сахар, vitamin c=витамин c, protein=белок, potassium=калий, calcium=кальций, "
        "sauce=соус, ketchup=кетчуп, mustard=горчица, corn=кукуруза, peas=горох, pie=пирог, doughnut=пончик, "
        "bagel=бублик, seeds=семя, grass=трава, hay=сено, leaves=лист"
    ),
    "room": (
        "kitchen=кухня, bathroom=ванная, bedroom=спальня, living room=гостиная, dining room=столовая, "
        "office=офис, classroom=класс, hallway=коридор, garage=гараж"
    ),
    "place": (
        "table=стол, street=улица, road=дорога, city=город, park=парк, beach=пляж, ocean=океан, sea=море, "
        "lake=озеро, river=река, water place=вода, field=поле, farm=ферма, zoo=зоопарк, airport=аэропорт, "
        "station=станция, train station=вокзал, bus stop=остановка, restaurant=ресторан, store=магазин, "
        "market=рынок, kitchen place=кухня, home=дом, house=дом, outside=улица, inside=внутри, sky=небо, "
        "mountain=гора, mountains=гора, snow=снег, forest=лес, desert=пустыня, sidewalk=тротуар, "
        "plate=тарелка, bowl=миска, floor=пол, ground=земля, wall=стена, bed=кровать, couch=диван, "
        "shelf=полка, counter=стойка, desk=письменный стол, hotel=гостиница, school=школа, church=церковь, "
        "library=библиотека, hospital=больница, museum=музей, stadium=стадион, court=корт, "
        "tennis court=теннисный корт, "
        "ski slope=склон, slope=склон, runway=полоса, harbor=гавань, pier=пирс, bridge=мост, "
        "parking lot=парковка, garden=сад, yard=двор, fridge place=холодильник, sink=раковина, tree=дерево"
    ),
    "country": (
        "china=китай, japan=япония, usa=сша, america=америка, united states=сша, england=англия, "
        "africa=африка, india=индия, italy=италия, france=франция, "
        "germany=германия, mexico=мексика, canada=канада, australia=австралия, russia=россия, moscow=москва, "
        "kenya=кения, antarctica=антарктида, asia=азия, europe=европа, north pole=северный полюс, spain=испания, "
        "brazil=бразилия, egypt=египет, greece=греция, switzerland=швейцария, netherlands=нидерланды, "
        "holland=голландия, sweden=швеция, norway=норвегия, ireland=ирландия, scotland=шотландия, korea=корея, "
        "thailand=таиланд, vietnam=вьетнам, turkey country=турция, argentina=аргентина, "
        "united kingdom=великобритания, uk=великобритания, britain=британия, "
        "hawaii=гавайи, florida=флорида, texas=техас, "
        "california=калифорния"
    ),
    "city": (
        "london=лондон, new york=нью-йорк, new york city=нью-йорк, paris=париж, san francisco=сан-франциско, "
        "chicago=чикаго, washington=вашингтон, seattle=сиэтл, boston=бостон, los angeles=лос-анджелес, "
        "las vegas=лас-вегас, tokyo=токио, rome=рим, venice=венеция, amsterdam=амстердам, berlin=берлин, "
        "moscow=москва, hong kong=гонконг, sydney=сидней, toronto=торонто, miami=майами, philadelphia=филадельфия, "
        "portland=портленд, denver=денвер, atlanta=атланта"
    ),
    "vehicle": (
        "car=машина, bus=автобус, truck=грузовик, train=поезд, airplane=самолёт, plane=самолёт, jet=самолёт, "
        "boat=лодка, ship=корабль, bicycle=велосипед, bike=велосипед, motorcycle=мотоцикл, scooter=скутер, "
        "taxi=такси, van=фургон, tractor=трактор, helicopter=вертолёт, subway=метро, tram=трамвай, "
        "passenger train=пассажирский поезд, freight=грузовой, sailboat=парусник, kayak=каяк, canoe=каноэ, "
        "yacht=яхта, ferry=паром, wheel=колесо, engine=двигатель, diesel=дизель, gas=бензин, "
        "electricity=электричество, "
        "electric=электрический, coal=уголь, gasoline=бензин, fuel=топливо, wind=ветер, solar=солнечный"
    ),
    "clothing": (
        "shirt=рубашка, t-shirt=футболка, jacket=куртка, coat=пальто, hat=шляпа, cap=кепка, helmet=шлем, "
        "tie=галстук, suit=костюм, dress=платье, skirt=юбка, jeans=джинсы, shorts=шорты, pants=брюки, "
        "shoes=обувь, sneakers=кроссовки, boots=ботинки, glasses=очки, sunglasses=очки, "
        "uniform=форма, wetsuit=гидрокостюм, wet suit=гидрокостюм, scarf=шарф, gloves=перчатки, "
        "backpack=рюкзак, bag=сумка, purse=сумочка, umbrella=зонт, watch=часы, necklace=ожерелье, vest=жилет, "
        "sweater=свитер, hoodie=толстовка, bikini=бикини, apron=фартук, costume=костюм"
    ),
    "material": (
        "wood=дерево, wooden=деревянный, metal=металл, steel=сталь, iron=железо, plastic=пластик, glass=стекло, "
        "paper=бумага, cardboard=картон, stone=камень, brick=кирпич, concrete=бетон, cement=цемент, tile=плитка, "
        "ceramic=керамика, porcelain=фарфор, cotton=хлопок, leather=кожа, wool=шерсть, polyester=полиэстер, "
        "wicker=лоза, bamboo=бамбук, straw=солома, feathers=перо, bronze=бронза, copper=медь, "
        "rubber=резина, marble=мрамор, granite=гранит, aluminum=алюминий, silk=шёлк, fabric=ткань, cloth=ткань, "
        "nylon=нейлон, clay=глина, sand=песок, asphalt=асфальт"
    ),
    "weather": (
        "sunny=солнечно, cloudy=облачно, rainy=дождь, rain=дождь, snowy=снег, clear=ясно, windy=ветрено, "
        "foggy=туман, cold=холодно, hot=жарко, warm=тепло, summer=лето, winter=зима, spring=весна, fall=осень, "
        "autumn=осень"
    ),
    "time": (
        "day=день, daytime=день, night=ночь, morning=утро, afternoon=полдень, evening=вечер, noon=полдень, "
        "sunset=закат, sunrise=рассвет, 1800s=1800s, 1900s=1900s, 1950s=1950s, 1990s=1990s, 2000=2000, "
        "1 hour=1 час, 10 years=10 год, 50 years=50 год, christmas=рождество, birthday=день рождения, "
        "halloween=хэллоуин, now=сейчас, today=сегодня"
    ),
    "brand": (
        "apple brand=apple, samsung=samsung, nokia=nokia, motorola=motorola, sony=sony, dell=dell, hp=hp, "
        "microsoft=microsoft, nike=nike, adidas=adidas, honda=honda, toyota=toyota, ford=ford, bmw=bmw, "
        "mercedes=mercedes, volkswagen=volkswagen, yamaha=yamaha, harley davidson=harley davidson, "
        "boeing=boeing, coca cola=coca cola, pepsi=pepsi, wilson=wilson, nintendo=nintendo, canon=canon, "
        "delta=delta, united=united, amtrak=amtrak, kawasaki=kawasaki, chevrolet=chevrolet, lg=lg"
    ),
    "activity": (
        "eating=есть, sleeping=спать, sitting=сидеть, standing=стоять, walking=идти, playing=играть, "
        "reading=читать, talking=говорить, cooking=готовить, driving=водить, riding=ехать, flying=летать, "
        "swimming activity=плавать, running activity=бежать, skiing activity=кататься на лыжах, "
        "surfing activity=сёрфинг, playing tennis=играть в теннис, playing frisbee=играть в фрисби, "
        "texting=переписка, working=работать, resting=отдыхать, relaxing=отдых, relax=отдых, waiting=ждать, "
        "jumping=прыгать, shopping=покупка, picnic=пикник, camping=кемпинг, fishing=рыбалка, racing=гонка, "
        "parking=парковка, grazing=пастись, drinking=пить, smiling=улыбаться, posing=позировать, "
        "photography=фотография, transportation=транспорт, travel=путешествие, safety=безопасность, "
        "protection=защита, decoration=украшение, fun=развлечение, exercise=упражнение, balance=баланс, "
        "shade=тень, warmth=тепло, cleaning=уборка, cutting=резать, sell=продавать, advertising=реклама"
    ),
    "person": (
        "man=мужчина, woman=женщина, boy=мальчик, girl=девочка, child=ребёнок, children=ребёнок, kids=ребёнок, "
        "baby=младенец, people=человек, person=человек, men=мужчина, women=женщина, player=игрок, "
        "tennis player=теннисист, batter=бьющий, catcher=кэтчер, pitcher=питчер, umpire=судья, "
        "referee=судья, chef=повар, cook=повар, police=полиция, policeman=полицейский, driver=водитель, "
        "pilot=пилот, farmer=фермер, soldier=солдат, tourist=турист, tourists=турист, family=семья, "
        "couple=пара, mother=мать, father=отец, friend=друг, skier=лыжник, surfer=сёрфер, passenger=пассажир, "
        "passengers=пассажир, nobody=никто, owner=владелец, student=студент, teacher=учитель, "
        "doctor=врач, king=король, queen=королева, president=президент, fireman=пожарный, firefighter=пожарный, "
        "photographer=фотограф, customer=покупатель, worker=рабочий"
    ),
    "tool": (
        "knife=нож, scissors=ножницы, fork=вилка, spoon=ложка, chopsticks=палочки, cutting board=доска, "
        "pizza cutter=нож, hammer=молоток, saw=пила, screwdriver=отвёртка, brush=щётка, "
        "toothbrush=щётка, remote=пульт, phone=телефон, cell phone=мобильный телефон, laptop=ноутбук, "
        "computer=компьютер, keyboard=клавиатура, mouse device=мышь, camera=камера, tv=телевизор, "
        "television=телевизор, clock=часы, oven=духовка, microwave=микроволновка, refrigerator=холодильник, "
        "fridge=холодильник, stove=плита, toaster=тостер, blender=блендер, vase=ваза, cup=чашка, mug=кружка, "
        "bottle=бутылка, glass cup=стакан, pot=кастрюля, pan=сковорода, lamp=лампа, light=свет, mirror=зеркало, "
        "pen=ручка, pencil=карандаш, book=книга, newspaper=газета, sign=знак, stop sign=знак стоп, "
        "traffic light=светофор, fire hydrant=пожарный гидрант, bench=скамейка, chair=стул, kite=воздушный змей, "
        "racket=ракетка, bat=бейсбольный бит, ball=мяч, glove=перчатка, skateboard=скейтборд, "
        "surfboard=доска, "
        "skis=лыжи, snowboard=сноуборд, frisbee disc=фрисби, toilet=унитаз, towel=полотенце, soap=мыло, "
        "candle=свеча, flowers=цветы, flower=цветок, plant=растение, toy=игрушка, luggage=багаж, suitcase=чемодан, "
        "tent=палатка, fence=забор, pole=столб, ski pole=палка, net=сетка, rope=верёвка, leash=поводок, "
        "saddle=седло, sail=парус, anchor=якорь, tower=башня, clock tower=башня, building=здание, "
        "window=окно, door=дверь, roof=крыша, heart=сердце, star=звезда, flag=флаг, map=карта, money=деньги, "
        "food item=еда, box=коробка, basket=корзина, tray=поднос, napkin=салфетка, blanket=одеяло, pillow=подушка, "
        "curtain=занавеска, rug=ковёр, carpet=ковёр, sink item=раковина, faucet=кран, tub=ванна, "
        "hydrant=гидрант, meter=счётчик, parking meter=паркомат, wire=провод, cable=кабель, battery=батарея, "
        "antenna=антенна, lens=объектив, fisheye=рыбий глаз, wave=волна, waves=волна, moon=луна, sun=солнце, "
        "cloud=облако, clouds=облако, fire=огонь, smoke=дым, ice=лёд, dirt=грязь, mud=грязь, rock=скала"
    ),
}


@dataclass(frozen=True, slots=True)
class Answer:
    """One vocabulary entry: the same answer in both languages."""

    en: str
    ru: str
    category: str

    def text(self, lang: str) -> str:
        """The answer in ``lang`` ("ru" or anything else for English)."""
        return self.ru if lang == "ru" else self.en


def _clean_en(word: str) -> str:
    # "orange fruit", "mouse device"... disambiguate duplicates inside the table only.
    for tag in (
        " country",
        " fruit",
        " device",
        " item",
        " place",
        " food",
        " meat",
        " brand",
        " activity",
        " cup",
        " disc",
    ):
        if word.endswith(tag) and word not in ("passion fruit",):
            return word[: -len(tag)]
    return word


@functools.cache
def vocabulary() -> tuple[Answer, ...]:
    """Every answer, in table order; English duplicates across categories kept (their Russian may differ)."""
    out: list[Answer] = []
    seen: set[Answer] = set()
    for category, block in _BLOCKS.items():
        for pair in block.split(","):
            en, _, ru = pair.strip().partition("=")
            # Stored as the scorer would leave them, so every entry is a fixed point of it.
            answer = Answer(normalize_answer(_clean_en(en.strip()), "en"), normalize_answer(ru.strip(), "ru"), category)
            if answer not in seen:
                seen.add(answer)
                out.append(answer)
    return tuple(out)


def categories() -> tuple[str, ...]:
    """Category names in table order."""
    return tuple(_BLOCKS)
